//! Demo documentation, loaded only with `PORTAL_SEED_DEMO=true` into an empty
//! files database: the operating manual of the demo patient monitor, a one-page
//! PDF (`demo/manual.pdf`, made by `demo/make_manual.py` with its Russian text in
//! an embedded font subset, 9 KB; committed rather than drawn at start, so the
//! service needs no font and every start stores the same bytes).
//!
//! Services share no tables, so the demo refers to the others' demo data by the
//! ids they get on a fresh database, as those demos refer to auth's: the monitor
//! (`Монитор пациента BeneView T5`) is the wiki demo's first model, 1; the
//! engineer who uploads it is auth's demo user 6. All demos run on the same first
//! start of `make run`.

use bytes::Bytes;
use portal_kit::ServiceResult;
use portal_kit::audit::AuditContext;

use crate::app::uploads::Uploads;
use crate::domain::content::Kind;
use crate::store::Store;

const MONITOR_MODEL_ID: i64 = 1;
const ENGINEER_ID: i64 = 6;
const MANUAL_TITLE: &str = "Руководство по эксплуатации";
const MANUAL_FILE_NAME: &str = "Руководство по эксплуатации.pdf";
/// The manual's bytes, public for the tests that download it.
pub const MANUAL: &[u8] = include_bytes!("demo/manual.pdf");

/// Stores the manual through the upload path (type check, safe name, blob,
/// record) unless a file exists already.
pub async fn load(store: &Store, uploads: &Uploads) -> ServiceResult<()> {
    if store.has_files().await? {
        return Ok(());
    }
    let content = futures_util::stream::iter([Ok(Bytes::from_static(MANUAL))]);
    let (id, _) = uploads
        .save(
            Kind::Document,
            ENGINEER_ID,
            MONITOR_MODEL_ID,
            (MANUAL_FILE_NAME, MANUAL_TITLE),
            content,
            &AuditContext::system(),
        )
        .await?;
    tracing::info!(id, model = MONITOR_MODEL_ID, "demo documentation loaded");
    Ok(())
}
