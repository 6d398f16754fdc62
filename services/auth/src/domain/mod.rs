//! Auth's rules and the types that carry them. A value of these types is valid by
//! construction: handlers parse requests into them, so storage never sees invalid
//! input. Nothing here touches the database or the network.

pub mod client_credentials;
pub mod common_passwords;
pub mod department;
pub mod device;
pub mod hr_key;
pub mod ids;
pub mod invitation;
pub mod login;
pub mod one_time;
pub mod password;
pub mod rate_limit;
pub mod refresh;
pub mod seal;
pub mod secret;
pub mod service_account;
pub mod staff;
pub mod staff_plan;
pub mod totp;
pub mod user;
pub mod user_agent;
