//! What revisions of articles and tests say when one cannot be had.

pub const MSG_REVISION_NOT_FOUND: &str = "Версия не найдена";
/// An article written before deadlines were required has none, and a save
/// needs one.
pub const MSG_REVISION_WITHOUT_DEADLINE: &str = "В этой версии статьи нет срока изучения";
