//! What a staff sync will do (issues 21 and 37), decided from what the store
//! has read and before it writes anything: [`people`] plans each person's
//! change, [`references`] each department's and position's. The store reads,
//! calls these, and writes the plans in its own transaction.

pub mod people;
pub mod references;

use portal_kit::ServiceError;

use super::staff::StaffBatch;
use people::Plan;

/// What the sync did, or would do, to a person, a department or a position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    Created,
    Changed,
    Blocked,
}

impl Action {
    pub fn as_str(self) -> &'static str {
        match self {
            Action::Created => "created",
            Action::Changed => "changed",
            Action::Blocked => "blocked",
        }
    }
}

/// The reason of a full sync refused for blocking too many people.
pub const REASON_MASS_BLOCK: &str = "staff-mass-block";

/// The refusal of a full sync whose plans block more than `max_percent` of
/// the `managed` people the sync keeps in step, unless the batch allows it.
pub fn mass_block_refusal(
    batch: &StaffBatch,
    plans: &[Plan],
    managed: usize,
    max_percent: u8,
) -> Option<ServiceError> {
    let blocking = plans
        .iter()
        .filter(|plan| plan.action == Action::Blocked)
        .count();
    let too_many = blocking * 100 > managed * usize::from(max_percent);
    (batch.full && !batch.allow_mass_block && too_many)
        .then(|| mass_block(blocking, managed, max_percent))
}

fn mass_block(blocking: usize, managed: usize, max_percent: u8) -> ServiceError {
    ServiceError::conflict(format!(
        "Полная выгрузка заблокировала бы {blocking} из {managed} сотрудников, которых ведёт синхронизация, — больше {max_percent} %. \
         Проверьте выгрузку пробным запуском; если увольнений действительно столько, повторите с разрешением массовой блокировки (allowMassBlock)"
    ))
    .because(REASON_MASS_BLOCK)
}
