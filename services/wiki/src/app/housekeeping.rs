//! What the wiki does to its data at every start, before it serves: rows
//! written under older rules are brought up to today's, and the bell's read
//! marks kept long enough are forgotten.

use portal_kit::ServiceResult;
use portal_kit::db::now_millis;

use crate::domain::instruction::Sanitizer;
use crate::store::Store;

/// Keys the reference names that have no key yet (or one of an older rule),
/// cleans again the instructions stored under older rules (links opening in
/// the same tab, frames without a sandbox) under today's, and forgets the
/// bell's read marks of items whose day passed long ago
/// (`portal_kit::read_marks::KEEP_DAYS`; each mark names its item's due day,
/// so without this they would only ever grow).
pub async fn at_start(store: &Store, sanitizer: &Sanitizer) -> ServiceResult<()> {
    store.key_reference_names().await?;
    let recleaned = store
        .reclean_instructions(|html| sanitizer.clean_again(html))
        .await?;
    if recleaned > 0 {
        tracing::info!(models = recleaned, "instructions cleaned again");
    }
    let forgotten = store.forget_old_read_marks(now_millis()).await?;
    if forgotten > 0 {
        tracing::info!(forgotten, "forgot old read marks of the bell");
    }
    Ok(())
}
