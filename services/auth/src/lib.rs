//! Portal's identity service: users, departments, positions, statuses and
//! rights; sign-in with rate limiting, access tokens and rotating refresh tokens.
//!
//! Reading order: this file wires the parts; [`rpc`] is the gRPC face (caller
//! check → parse → app or store → reply), [`convert`] its records to messages;
//! [`app`] what calls and start-up do beyond one store call (sign-in, refresh
//! and sign-out, their limits, other systems' tokens, housekeeping, the
//! bootstrap admin); [`domain`]
//! the types that cannot be invalid and the rules; [`store`] the queries, one
//! module per aggregate; [`demo`] the demo data; `migrations/{sqlite,postgres}`
//! the schema.

pub mod app;
pub mod convert;
pub mod demo;
pub mod directory;
pub mod domain;
pub mod rpc;
pub mod sso;
pub mod store;

use std::path::PathBuf;

use portal_kit::audit::{AuditRpc, AuditSettings};
use portal_kit::db::{Database, DatabaseSettings, Migrations};
use portal_kit::housekeeping::Housekeeping;
use portal_kit::idempotency::{Idempotent, SecretAnswer};
use portal_kit::internal::InternalKeys;
use portal_kit::revocation::AccessVersions;
use portal_kit::start::StartError;
use portal_kit::token::{Subject, TokenIssuer, TokenVerifier};
use portal_proto::audit::v1::audit_service_server::AuditServiceServer;
use portal_proto::auth::v1::access_revocation_service_server::AccessRevocationServiceServer;
use portal_proto::auth::v1::auth_service_server::AuthServiceServer;
use portal_proto::auth::v1::mail_recipient_service_server::MailRecipientServiceServer;
use portal_proto::auth::v1::service_account_service_server::ServiceAccountServiceServer;
use portal_proto::search::v1::search_service_server::SearchServiceServer;
use secrecy::{ExposeSecret, SecretString};
use sqlx::AnyPool;
use tokio_util::sync::CancellationToken;
use tonic::service::Routes;
use tonic::service::interceptor::InterceptedService;

use crate::app::directory_sign_in::DirectorySignIn;
use crate::app::mfa::SecondFactor;
use crate::app::password_check::PasswordCheck;
use crate::app::reset_mail::{MailRelay, ResetMail};
use crate::app::service_tokens::ServiceTokens;
use crate::app::sessions::Sessions;
use crate::app::sso_sign_in::SsoSignIn;
use crate::directory::{Directory, DirectoryArgs, DirectorySettings};
use crate::domain::login::Login;
use crate::domain::password::{Password, Passwords};
use crate::domain::seal::Seal;
use crate::rpc::{AccessRevocationRpc, AuthRpc, MailRecipientRpc, SearchRpc, ServiceAccountRpc};
use crate::sso::{SingleSignOn, SsoArgs, SsoSettings};
use crate::store::Store;

/// The full gRPC name of the service, for health and routing.
pub const SERVICE_NAME: &str = "portal.auth.v1.AuthService";
/// Other hospital systems' accounts and their tokens, served beside
/// AuthService and forwarded by the gateway like it.
pub const SERVICE_ACCOUNT_SERVICE_NAME: &str =
    portal_proto::auth::v1::service_account_service_server::SERVICE_NAME;
/// The internal service the other services ask whose tokens are stale; the
/// gateway does not forward it.
pub const REVOCATION_SERVICE_NAME: &str =
    portal_proto::auth::v1::access_revocation_service_server::SERVICE_NAME;

/// Auth's own part of the `portal` command line.
#[derive(Clone, Debug, clap::Args)]
pub struct AuthArgs {
    /// Ed25519 private key (PKCS#8 PEM) that signs access tokens; auth only
    /// [default: generated into the data dir by `all`].
    #[arg(
        long,
        env = "PORTAL_JWT_PRIVATE_KEY_FILE",
        value_name = "PORTAL_JWT_PRIVATE_KEY_FILE"
    )]
    pub jwt_private_key_file: Option<PathBuf>,

    /// The bootstrap admin's login, created once when no user exists.
    #[arg(
        long,
        env = "PORTAL_ADMIN_LOGIN",
        value_name = "PORTAL_ADMIN_LOGIN",
        default_value = "admin"
    )]
    pub admin_login: String,
    /// The bootstrap admin's password [default: random, printed once].
    #[arg(
        long,
        env = "PORTAL_ADMIN_PASSWORD",
        value_name = "PORTAL_ADMIN_PASSWORD",
        hide_env_values = true
    )]
    admin_password: Option<SecretString>,
    /// PORTAL_ADMIN_PASSWORD read from this file (e.g. a mounted Secret).
    #[arg(
        long,
        env = "PORTAL_ADMIN_PASSWORD_FILE",
        value_name = "PORTAL_ADMIN_PASSWORD_FILE",
        value_parser = portal_kit::secret_file::parse,
        conflicts_with = "admin_password"
    )]
    admin_password_file: Option<SecretString>,

    /// Directory sign-in (`PORTAL_LDAP_*`).
    #[command(flatten)]
    pub directory: DirectoryArgs,

    /// Single sign-on by OpenID Connect (`PORTAL_OIDC_*`).
    #[command(flatten)]
    pub sso: SsoArgs,

    /// The most a full staff sync may block, as a share (%) of the people
    /// the sync keeps in step, unless the call allows a mass block.
    #[arg(
        long,
        env = "PORTAL_STAFF_SYNC_MAX_BLOCK_PERCENT",
        value_name = "PORTAL_STAFF_SYNC_MAX_BLOCK_PERCENT",
        default_value_t = 10,
        value_parser = clap::value_parser!(u8).range(0..=100)
    )]
    pub staff_sync_max_block_percent: u8,

    /// Two-step sign-in required of every holder of an admin-type right: they
    /// cannot turn it off, and one without it yet is asked to enrol.
    #[arg(
        long,
        env = "PORTAL_MFA_FOR_ADMINS",
        value_name = "PORTAL_MFA_FOR_ADMINS",
        default_value_t = false,
        action = clap::ArgAction::Set
    )]
    pub mfa_for_admins: bool,
}

impl AuthArgs {
    /// The bootstrap admin's password given (PORTAL_ADMIN_PASSWORD or its file), if any.
    pub fn admin_password(&self) -> Option<&SecretString> {
        self.admin_password
            .as_ref()
            .or(self.admin_password_file.as_ref())
    }
}

/// What auth needs to start.
#[derive(Clone, Debug)]
pub struct AuthSettings {
    pub database: DatabaseSettings,
    pub private_key_file: PathBuf,
    pub public_key_file: PathBuf,
    pub admin_login: String,
    pub admin_password: Option<SecretString>,
    pub seed_demo: bool,
    /// The audit log's retention, and the callers whose forwarded client
    /// address is believed (the gateway), for the log and the sign-in limits.
    pub audit: AuditSettings,
    /// `PORTAL_PUBLIC_URL`: systems' client assertions may name its token
    /// endpoint as their audience.
    pub public_url: String,
    /// The server's shutdown: the daily housekeeping stops then.
    pub shutdown: CancellationToken,
    /// `PORTAL_STAFF_SYNC_MAX_BLOCK_PERCENT`.
    pub staff_sync_max_block_percent: u8,
    /// Checks the other services' calls to the internal services.
    pub internal: InternalKeys,
    /// The relay the links of «Забыли пароль?» go through (the digests'
    /// `PORTAL_SMTP_URL` and `PORTAL_SMTP_FROM`); none are sent without one.
    pub mail: Option<MailRelay>,
    /// The directory that checks the passwords of people without a portal
    /// one (`PORTAL_LDAP_*`); none: every password is the portal's.
    pub directory: Option<DirectorySettings>,
    /// The OpenID provider of single sign-on (`PORTAL_OIDC_*`); none: off.
    pub sso: Option<SsoSettings>,
    /// `PORTAL_MFA_FOR_ADMINS`.
    pub mfa_for_admins: bool,
}

/// The oldest migration a binary must know (its newest at least this) to run on
/// the schema this release leaves. Kept while a release only expands the
/// schema, raised only by one that contracts it (ARCHITECTURE.md, invariants).
/// No release before this one reads it, so it starts at the newest migration.
pub const OLDEST_COMPATIBLE_READER: i64 = 7;

/// The schema of each backend, embedded in the binary.
pub fn migrations() -> Migrations {
    portal_kit::migrations!(OLDEST_COMPATIBLE_READER)
}

/// AuthService's methods whose answers carry a secret, never stored with
/// their idempotency key, and what a retry gets (`portal_kit::idempotency`).
/// Done again: a new pending authenticator replaces the one before, and the
/// sign-ins' tokens are new each time (their callers are anonymous as a rule,
/// keyed by no one). Refused: confirming and new recovery codes need a code
/// their first run used up, and a second printed code would void the first,
/// which may already be on paper.
const AUTH_SECRET_ANSWERS: &[(&str, SecretAnswer)] = &[
    ("EnrolMfa", SecretAnswer::Rerun),
    ("Login", SecretAnswer::Rerun),
    ("LoginMfa", SecretAnswer::Rerun),
    ("RefreshToken", SecretAnswer::Rerun),
    ("FirstSignIn", SecretAnswer::Rerun),
    // A flow's state, and the session its callback opens (once: a retry of
    // the callback finds its flow used).
    ("StartSso", SecretAnswer::Rerun),
    ("FinishSso", SecretAnswer::Rerun),
    ("MakeFirstSignInCode", SecretAnswer::Refuse),
    ("ConfirmMfa", SecretAnswer::Refuse),
    ("RegenerateRecoveryCodes", SecretAnswer::Refuse),
];

/// ServiceAccountService's, likewise. Refused: a second account must not be
/// made, nor a second rotation revoke the secret a system already uses (at
/// most two live: a rotation revokes the older).
/// Done again: a token is issued anew (its callers are anonymous as a rule).
const SERVICE_ACCOUNT_SECRET_ANSWERS: &[(&str, SecretAnswer)] = &[
    ("CreateServiceAccount", SecretAnswer::Refuse),
    ("RotateServiceAccountSecret", SecretAnswer::Refuse),
    ("IssueServiceToken", SecretAnswer::Rerun),
];

/// Connects, migrates, creates the bootstrap admin and demo data if asked, and
/// returns the service's routes (with the token interceptor installed).
pub async fn routes(settings: AuthSettings) -> Result<Routes, StartError> {
    let issuer = TokenIssuer::from_pem_file(&settings.private_key_file)?;
    let verifier = TokenVerifier::from_pem_file(&settings.public_key_file)?;
    check_key_pair(&issuer, &verifier)?;
    let (admin_login, admin_password) = admin_account(&settings)?;
    let (store, pool) = open_store(&settings).await?;
    let passwords = Passwords::new()
        .await
        .map_err(StartError::step("preparing password hashing"))?;
    app::bootstrap::admin(&store, &passwords, &admin_login, admin_password)
        .await
        .map_err(StartError::step("creating the bootstrap admin"))?;
    if settings.seed_demo {
        demo::load(&store, &passwords, &admin_login)
            .await
            .map_err(StartError::step("loading demo data"))?;
    }

    let reset_mail = ResetMail::new(settings.mail.as_ref(), &settings.public_url)
        .map_err(|error| StartError::Setting(format!("PORTAL_SMTP_URL: {error}")))?;
    if !reset_mail.is_on() {
        tracing::info!("password reset links are off (PORTAL_SMTP_URL is not set)");
    }
    let tokens = ServiceTokens::new(store.clone(), issuer.clone(), &settings.public_url);
    let directory = settings.directory.map(|directory| {
        tracing::info!(url = %directory.url, "directory sign-in is on");
        DirectorySignIn::new(Directory::new(directory), store.clone())
    });
    let check = PasswordCheck::new(passwords, directory);
    let single_sign_on = single_sign_on(settings.sso, &store)?;
    let second_factor = SecondFactor::new(
        store.clone(),
        seal(&settings.internal)?,
        settings.mfa_for_admins,
    );
    let sessions = Sessions::new(
        store.clone(),
        check.clone(),
        issuer,
        second_factor,
        single_sign_on,
    );
    // Auth's replicas learn who was blocked or changed from their database.
    let versions = AccessVersions::default();
    versions.follow(store.clone());
    let auth = AuthRpc::new(
        store.clone(),
        check,
        sessions,
        settings.audit.trusted_proxies.clone(),
        versions.clone(),
        settings.staff_sync_max_block_percent,
        reset_mail,
    );
    let service_accounts = ServiceAccountRpc::new(
        store.clone(),
        tokens,
        settings.audit.trusted_proxies,
        versions.clone(),
    );
    let guards = Guards {
        verifier,
        versions,
        internal: &settings.internal,
    };
    Ok(serve(auth, service_accounts, store, pool, guards))
}

/// The bootstrap admin's login and password (if set) from the settings.
fn admin_account(settings: &AuthSettings) -> Result<(Login, Option<Password>), StartError> {
    let admin_login = Login::parse(&settings.admin_login).map_err(|_| {
        StartError::Setting("PORTAL_ADMIN_LOGIN must be 1 to 64 characters without spaces".into())
    })?;
    let admin_password = match settings
        .admin_password
        .as_ref()
        .map(ExposeSecret::expose_secret)
    {
        Some(password) => Some(Password::parse(password).map_err(|_| {
            StartError::Setting("PORTAL_ADMIN_PASSWORD must be 8 to 256 characters".into())
        })?),
        None => None,
    };
    Ok((admin_login, admin_password))
}

/// Opens and migrates the database, starts its housekeeping, and tidies and
/// indexes what an earlier release left. Answers the store and the shared
/// pool, on which idempotency keys and audit records are read too.
async fn open_store(settings: &AuthSettings) -> Result<(Store, AnyPool), StartError> {
    let database = Database::open(&settings.database, &migrations())
        .await
        .map_err(StartError::database("auth"))?;
    let known_devices = Database::lane(
        &settings.database,
        KNOWN_DEVICES_CONNECTIONS,
        "known-devices",
    )
    .await
    .map_err(StartError::database("auth"))?;
    let pool = database.pool.clone();
    Housekeeping::of("auth", &database, &settings.audit, false).spawn(settings.shutdown.clone());
    let store = Store::new(database.pool, known_devices, database.backend);
    app::housekeeping::tidy(&store)
        .await
        .map_err(StartError::step(HOUSEKEEPING))?;
    store.index_missing().await.map_err(StartError::step(
        "indexing people and departments for search",
    ))?;
    Ok((store, pool))
}

/// Authenticator secrets are sealed under keys derived from the internal
/// key file, which a database dump does not hold.
fn seal(internal: &InternalKeys) -> Result<Seal, StartError> {
    Seal::new(&internal.derive(domain::seal::PURPOSE))
        .ok_or_else(|| StartError::Setting("PORTAL_INTERNAL_KEY_FILE: no usable key".into()))
}

fn single_sign_on(
    settings: Option<SsoSettings>,
    store: &Store,
) -> Result<Option<SsoSignIn>, StartError> {
    let Some(sso) = settings else {
        return Ok(None);
    };
    tracing::info!(issuer = %sso.issuer, "single sign-on is on");
    let sso = SingleSignOn::new(sso).map_err(StartError::Setting)?;
    Ok(Some(SsoSignIn::new(sso, store.clone())))
}

/// What lets a call in: a person's or a system's token (not older than their
/// access version), or for the internal services the portal's own credential.
struct Guards<'a> {
    verifier: TokenVerifier,
    versions: AccessVersions,
    internal: &'a InternalKeys,
}

/// The services behind their guards, retried writes answered once.
fn serve(
    auth: AuthRpc,
    service_accounts: ServiceAccountRpc,
    store: Store,
    pool: AnyPool,
    guards: Guards,
) -> Routes {
    let Guards {
        verifier,
        versions,
        internal,
    } = guards;
    let service = InterceptedService::new(
        Idempotent::new(AuthServiceServer::new(auth), pool.clone())
            .with_secret_answers(AUTH_SECRET_ANSWERS),
        verifier.clone().with_access_versions(versions.clone()),
    );
    let service_accounts = InterceptedService::new(
        Idempotent::new(
            ServiceAccountServiceServer::new(service_accounts),
            pool.clone(),
        )
        .with_secret_answers(SERVICE_ACCOUNT_SECRET_ANSWERS),
        verifier.clone().with_access_versions(versions.clone()),
    );
    let audit = InterceptedService::new(
        AuditServiceServer::new(AuditRpc::new(pool)),
        verifier.clone().with_access_versions(versions.clone()),
    );
    let search = InterceptedService::new(
        SearchServiceServer::new(SearchRpc::new(store.clone())),
        verifier.with_access_versions(versions),
    );
    // Internal: they answer for no person, so only the portal's own services
    // (their credential) may call them.
    let mail_recipients = InterceptedService::new(
        MailRecipientServiceServer::new(MailRecipientRpc::new(store.clone())),
        internal.guard(),
    );
    let revocation = InterceptedService::new(
        AccessRevocationServiceServer::new(AccessRevocationRpc::new(store)),
        internal.guard(),
    );
    Routes::new(service)
        .add_service(service_accounts)
        .add_service(audit)
        .add_service(search)
        .add_service(revocation)
        .add_service(mail_recipients)
}

/// Connections of the known devices' lane ([`store::Store::for_sign_in`]),
/// on top of the shared pool's: a ward's morning sign-ins are a few at a time.
const KNOWN_DEVICES_CONNECTIONS: u32 = 2;

const HOUSEKEEPING: &str =
    "tidying the auth database at start (title and login keys, unused devices)";

fn key_mismatch() -> StartError {
    StartError::Setting("the private key (PORTAL_JWT_PRIVATE_KEY_FILE) signs tokens the public key (PORTAL_JWT_PUBLIC_KEY_FILE) does not verify".into())
}

fn check_key_pair(issuer: &TokenIssuer, verifier: &TokenVerifier) -> Result<(), StartError> {
    let probe = Subject {
        user_id: 0,
        login: String::new(),
        name: String::new(),
        surname: String::new(),
        last_name: String::new(),
        rights: Vec::new(),
        departments: Vec::new(),
        access_version: 0,
    };
    let token = issuer.issue(probe).map_err(|_| key_mismatch())?;
    verifier.verify(&token).map(|_| ()).ok_or_else(key_mismatch)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_settings_never_print_a_password() {
        let settings = AuthSettings {
            database: "postgres://portal:db-secret-pw@db/auth".into(),
            private_key_file: "jwt-private.pem".into(),
            public_key_file: "jwt-public.pem".into(),
            admin_login: "admin".into(),
            admin_password: Some("admin-secret-pw".into()),
            seed_demo: false,
            audit: AuditSettings::loopback(),
            public_url: "http://127.0.0.1:8080".into(),
            shutdown: CancellationToken::new(),
            staff_sync_max_block_percent: 10,
            internal: portal_kit::testing::TestKeys::new().internal,
            mail: None,
            directory: None,
            sso: None,
            mfa_for_admins: false,
        };
        let printed = format!("{settings:?}");
        assert!(!printed.contains("db-secret-pw"), "{printed}");
        assert!(!printed.contains("admin-secret-pw"), "{printed}");
        assert!(printed.contains("admin_login: \"admin\""), "{printed}");
    }
}
