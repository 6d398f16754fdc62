//! Start-up housekeeping: stored content brought under today's rules (the
//! daily purges are kit's, `portal_kit::housekeeping`).

use portal_kit::ServiceResult;

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
