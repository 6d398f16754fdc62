//! A department's label sheet: one sticker per active unit, with its model's
//! name and the QR code of the model's instruction for that unit.

use portal_kit::ServiceResult;

use crate::app::qr_codes::QrCodes;
use crate::domain::scope::Scope;
use crate::store::Store;
use crate::store::unit::{UnitFilter, UnitRecord};

/// What one unit's sticker shows.
pub struct Label {
    pub unit: UnitRecord,
    pub model_name: String,
    /// What the code opens.
    pub url: String,
    pub qr_code: Vec<u8>,
}

/// The labels of the units of department `department_id` that `scope` sees,
/// by model name, then inventory number.
pub async fn sheet(
    store: &Store,
    qr_codes: &QrCodes,
    scope: &Scope,
    department_id: i64,
) -> ServiceResult<Vec<Label>> {
    let filter = UnitFilter {
        department_id: Some(department_id),
        ..UnitFilter::default()
    };
    let names = store.model_names().await?;
    let mut labels = Vec::new();
    for unit in store.units(scope, filter).await? {
        let model_id = unit.environment_model_id;
        labels.push(Label {
            model_name: names.get(&model_id).cloned().unwrap_or_default(),
            url: qr_codes.url(model_id, Some(unit.id)),
            qr_code: qr_codes.png(model_id, Some(unit.id))?,
            unit,
        });
    }
    labels.sort_by(|a, b| {
        (&a.model_name, &a.unit.inventory_number).cmp(&(&b.model_name, &b.unit.inventory_number))
    });
    Ok(labels)
}
