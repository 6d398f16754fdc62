//! Start-up housekeeping: stored content brought under today's rules, and
//! the bell's read marks kept long enough forgotten.

use portal_kit::ServiceResult;
use portal_kit::db::now_millis;

use crate::domain::article::ContentCleaner;
use crate::store::Store;

/// Cleans every stored article again with `cleaner`: content stored under
/// older rules (frames from anywhere, links in the same tab) follows today's.
pub async fn reclean_articles(store: &Store, cleaner: &ContentCleaner) -> ServiceResult<()> {
    let recleaned = store.reclean_articles(|html| cleaner.clean(html)).await?;
    if recleaned > 0 {
        tracing::info!(articles = recleaned, "article content cleaned again");
    }
    Ok(())
}

/// Forgets the bell's read marks of items whose day passed long ago
/// (`portal_kit::read_marks::KEEP_DAYS`): each mark names its item's due day,
/// so without this they would only ever grow.
pub async fn forget_old_read_marks(store: &Store) -> ServiceResult<()> {
    let forgotten = store.forget_old_read_marks(now_millis()).await?;
    if forgotten > 0 {
        tracing::info!(forgotten, "forgot old read marks of the bell");
    }
    Ok(())
}
