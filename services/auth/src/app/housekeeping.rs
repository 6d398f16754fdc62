//! The tidying auth does at every start, before it serves: keys that older
//! rows lack or hold in an older form, and devices nobody has used for a year
//! (not on every sign-in, which is the path a flood contends on).

use portal_kit::ServiceResult;
use portal_kit::db::now_millis;

use crate::store::Store;

pub async fn tidy(store: &Store) -> ServiceResult<()> {
    store.key_department_titles().await?;
    store.key_logins().await?;
    store.key_service_account_names().await?;
    let forgotten = store.purge_unused_devices(now_millis()).await?;
    if forgotten > 0 {
        tracing::info!(forgotten, "forgot devices unused for a year");
    }
    Ok(())
}
