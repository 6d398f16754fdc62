//! What the wiki does to its data at every start, before it serves: rows
//! written under older rules are brought up to today's (the daily purges are
//! kit's, `portal_kit::housekeeping`).

use portal_kit::ServiceResult;

use crate::domain::instruction::Sanitizer;
use crate::store::Store;

/// Keys the reference names that have no key yet (or one of an older rule),
/// and cleans again the instructions stored under older rules (links opening
/// in the same tab, frames without a sandbox) under today's.
pub async fn at_start(store: &Store, sanitizer: &Sanitizer) -> ServiceResult<()> {
    store.key_reference_names().await?;
    let recleaned = store
        .reclean_instructions(|html| sanitizer.clean_again(html))
        .await?;
    if recleaned > 0 {
        tracing::info!(models = recleaned, "instructions cleaned again");
    }
    Ok(())
}
