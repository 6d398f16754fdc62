// `sqlx::migrate!` embeds the migrations at compile time; without this, adding a
// migration file would not rebuild the crate and a stale binary would miss it.
fn main() {
    println!("cargo:rerun-if-changed=migrations");
}
