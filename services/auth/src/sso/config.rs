//! Single sign-on's settings (`PORTAL_OIDC_*`): read by clap with the rest of
//! auth's, checked once at start into [`SsoSettings`], so a wrong one stops
//! the start with a sentence naming the variable rather than failing every
//! sign-in.

use std::path::PathBuf;

use portal_kit::start::StartError;
use secrecy::SecretString;
use url::Url;

use crate::directory::GroupRights;
use crate::directory::config::{required_with, setting};

/// The ID token's claim that holds the HR employee number the staff sync keeps.
pub const DEFAULT_MATCH_CLAIM: &str = "employee_number";
/// What the sign-in page's button says after «Войти через».
pub const DEFAULT_NAME: &str = "единую учётную запись";
/// What the portal asks of the provider: who the person is, and their groups
/// where the provider gives them by scope.
pub const DEFAULT_SCOPES: &str = "openid profile email";
/// `amr` values (RFC 8176) that say the provider asked more than a password.
pub const DEFAULT_MFA_AMR: &str = "mfa,otp,hwk,swk,sms,fpt,face,iris,sc";

/// Single sign-on's part of the `portal` command line.
#[derive(Clone, Debug, Default, clap::Args)]
pub struct SsoArgs {
    /// The OpenID provider's issuer (`https://sso.hospital.local/realms/hospital`);
    /// its discovery document is read from there [default: off].
    #[arg(long, env = "PORTAL_OIDC_ISSUER", value_name = "PORTAL_OIDC_ISSUER")]
    pub oidc_issuer: Option<String>,
    /// The portal's client id at the provider.
    #[arg(
        long,
        env = "PORTAL_OIDC_CLIENT_ID",
        value_name = "PORTAL_OIDC_CLIENT_ID"
    )]
    pub oidc_client_id: Option<String>,
    /// The portal's client secret at the provider.
    #[arg(
        long,
        env = "PORTAL_OIDC_CLIENT_SECRET",
        value_name = "PORTAL_OIDC_CLIENT_SECRET",
        hide_env_values = true
    )]
    pub oidc_client_secret: Option<SecretString>,
    /// PORTAL_OIDC_CLIENT_SECRET read from this file.
    #[arg(
        long,
        env = "PORTAL_OIDC_CLIENT_SECRET_FILE",
        value_name = "PORTAL_OIDC_CLIENT_SECRET_FILE",
        value_parser = portal_kit::secret_file::parse,
        conflicts_with = "oidc_client_secret"
    )]
    pub oidc_client_secret_file: Option<SecretString>,
    /// The provider's name on the sign-in page: «Войти через {name}».
    #[arg(
        long,
        env = "PORTAL_OIDC_NAME",
        value_name = "PORTAL_OIDC_NAME",
        default_value = DEFAULT_NAME
    )]
    pub oidc_name: String,
    /// The ID token's claim matched to a person's employee number (then
    /// `preferred_username` to the login).
    #[arg(
        long,
        env = "PORTAL_OIDC_MATCH_CLAIM",
        value_name = "PORTAL_OIDC_MATCH_CLAIM",
        default_value = DEFAULT_MATCH_CLAIM
    )]
    pub oidc_match_claim: String,
    /// Create a person (with no rights) for a subject the portal does not know.
    #[arg(
        long,
        env = "PORTAL_OIDC_CREATE_PEOPLE",
        value_name = "PORTAL_OIDC_CREATE_PEOPLE",
        default_value_t = false,
        action = clap::ArgAction::Set
    )]
    pub oidc_create_people: bool,
    /// Rights held by membership of groups (the `groups` claim), set at each
    /// sign-in: `GROUP=Right;GROUP=Right`.
    #[arg(
        long,
        env = "PORTAL_OIDC_GROUP_RIGHTS",
        value_name = "PORTAL_OIDC_GROUP_RIGHTS"
    )]
    pub oidc_group_rights: Option<String>,
    /// The scopes asked for, space-separated (`openid` always).
    #[arg(
        long,
        env = "PORTAL_OIDC_SCOPES",
        value_name = "PORTAL_OIDC_SCOPES",
        default_value = DEFAULT_SCOPES
    )]
    pub oidc_scopes: String,
    /// `amr` values that mean the provider checked a second factor, so the
    /// portal does not ask for its own (comma-separated).
    #[arg(
        long,
        env = "PORTAL_OIDC_MFA_AMR",
        value_name = "PORTAL_OIDC_MFA_AMR",
        default_value = DEFAULT_MFA_AMR
    )]
    pub oidc_mfa_amr: String,
    /// `acr` values that mean the same (comma-separated; Keycloak's
    /// step-up levels, say) [default: none].
    #[arg(long, env = "PORTAL_OIDC_MFA_ACR", value_name = "PORTAL_OIDC_MFA_ACR")]
    pub oidc_mfa_acr: Option<String>,
    /// The CA (PEM) that signed the provider's certificate [default: the
    /// public roots compiled in].
    #[arg(long, env = "PORTAL_OIDC_CA_FILE", value_name = "PORTAL_OIDC_CA_FILE")]
    pub oidc_ca_file: Option<PathBuf>,
}

/// Single sign-on's settings, checked.
#[derive(Clone)]
pub struct SsoSettings {
    /// As given: the provider's documents must name exactly this issuer.
    pub issuer: String,
    pub client_id: String,
    pub client_secret: SecretString,
    pub name: String,
    pub match_claim: String,
    pub create_people: bool,
    pub group_rights: GroupRights,
    pub scopes: Vec<String>,
    pub mfa_amr: Vec<String>,
    pub mfa_acr: Vec<String>,
    /// Where the provider sends the browser back: `{PORTAL_PUBLIC_URL}/api/auth/oidc/callback`.
    pub redirect_url: Url,
    /// Where the provider's sign-out sends the browser: `{PORTAL_PUBLIC_URL}/login`.
    pub post_logout_url: Url,
    /// The CA certificate (PEM) of PORTAL_OIDC_CA_FILE, if given.
    pub ca_pem: Option<Vec<u8>>,
}

impl std::fmt::Debug for SsoSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SsoSettings")
            .field("issuer", &self.issuer)
            .field("client_id", &self.client_id)
            .field("name", &self.name)
            .field("match_claim", &self.match_claim)
            .field("create_people", &self.create_people)
            .field("group_rights", &self.group_rights)
            .field("redirect_url", &self.redirect_url.as_str())
            .finish_non_exhaustive()
    }
}

/// The callback's path under PORTAL_PUBLIC_URL (the fixed name).
pub const CALLBACK_PATH: &str = "/api/auth/oidc/callback";
const SIGN_IN_PAGE: &str = "/login";

impl SsoArgs {
    /// The settings, or `None` when PORTAL_OIDC_ISSUER is not set;
    /// `public_url` is PORTAL_PUBLIC_URL, which the callback hangs off.
    pub fn settings(&self, public_url: &str) -> Result<Option<SsoSettings>, StartError> {
        let Some(issuer) = self.oidc_issuer.as_deref().map(str::trim) else {
            return Ok(None);
        };
        secure_url(issuer, "PORTAL_OIDC_ISSUER")?;
        let issuer = issuer.to_owned();
        let client_id = required(self.oidc_client_id.as_deref(), "PORTAL_OIDC_CLIENT_ID")?;
        let client_secret = self
            .oidc_client_secret
            .clone()
            .or_else(|| self.oidc_client_secret_file.clone())
            .ok_or_else(|| {
                setting("PORTAL_OIDC_CLIENT_SECRET (or PORTAL_OIDC_CLIENT_SECRET_FILE) must be set with PORTAL_OIDC_ISSUER")
            })?;
        let public_url = public_url.trim_end_matches('/');
        let redirect_url = Url::parse(&format!("{public_url}{CALLBACK_PATH}")).map_err(|e| {
            setting(&format!(
                "PORTAL_PUBLIC_URL: not a URL for the callback: {e}"
            ))
        })?;
        let post_logout_url = Url::parse(&format!("{public_url}{SIGN_IN_PAGE}"))
            .map_err(|e| setting(&format!("PORTAL_PUBLIC_URL: not a URL: {e}")))?;
        let match_claim = self.oidc_match_claim.trim();
        if match_claim.is_empty() || match_claim.contains(char::is_whitespace) {
            return Err(setting("PORTAL_OIDC_MATCH_CLAIM must name one claim"));
        }
        let group_rights =
            GroupRights::parse_names(self.oidc_group_rights.as_deref().unwrap_or(""))
                .map_err(|e| setting(&format!("PORTAL_OIDC_GROUP_RIGHTS: {e}")))?;
        let name = self.oidc_name.trim();
        if name.is_empty() || name.chars().count() > 60 {
            return Err(setting("PORTAL_OIDC_NAME must be 1 to 60 characters"));
        }
        let mut scopes = words(&self.oidc_scopes, char::is_whitespace);
        scopes.retain(|scope| scope != "openid");
        let ca_pem = match &self.oidc_ca_file {
            Some(path) => Some(std::fs::read(path).map_err(|e| {
                setting(&format!(
                    "PORTAL_OIDC_CA_FILE {}: cannot read it: {e}",
                    path.display()
                ))
            })?),
            None => None,
        };
        Ok(Some(SsoSettings {
            issuer,
            client_id,
            client_secret,
            name: name.to_owned(),
            match_claim: match_claim.to_owned(),
            create_people: self.oidc_create_people,
            group_rights,
            scopes,
            mfa_amr: words(&self.oidc_mfa_amr, |c| c == ','),
            mfa_acr: words(self.oidc_mfa_acr.as_deref().unwrap_or(""), |c| c == ','),
            redirect_url,
            post_logout_url,
            ca_pem,
        }))
    }
}

/// The provider's answers carry the keys every session rests on: HTTPS,
/// except to this machine itself (a provider beside the portal, in tests).
fn secure_url(text: &str, name: &str) -> Result<Url, StartError> {
    let url = Url::parse(text).map_err(|e| setting(&format!("{name} is not a URL: {e}")))?;
    let loopback = match url.host() {
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
        Some(url::Host::Domain(domain)) => domain == "localhost",
        None => return Err(setting(&format!("{name} names no host"))),
    };
    match url.scheme() {
        "https" => Ok(url),
        "http" if loopback => Ok(url),
        _ => Err(setting(&format!(
            "{name} must be https:// (http:// only to 127.0.0.1 or localhost)"
        ))),
    }
}

fn words(text: &str, separator: impl Fn(char) -> bool) -> Vec<String> {
    text.split(separator)
        .map(str::trim)
        .filter(|word| !word.is_empty())
        .map(str::to_owned)
        .collect()
}

fn required(value: Option<&str>, name: &str) -> Result<String, StartError> {
    required_with(value, name, "PORTAL_OIDC_ISSUER")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(issuer: &str) -> SsoArgs {
        SsoArgs {
            oidc_issuer: Some(issuer.into()),
            oidc_client_id: Some("portal".into()),
            oidc_client_secret: Some("client-secret-value".into()),
            oidc_name: DEFAULT_NAME.into(),
            oidc_match_claim: DEFAULT_MATCH_CLAIM.into(),
            oidc_scopes: DEFAULT_SCOPES.into(),
            oidc_mfa_amr: DEFAULT_MFA_AMR.into(),
            ..SsoArgs::default()
        }
    }

    fn refusal(args: &SsoArgs) -> String {
        match args.settings("https://portal.hospital.local") {
            Err(error) => error.to_string(),
            Ok(_) => panic!("accepted"),
        }
    }

    #[test]
    fn no_issuer_is_no_single_sign_on() {
        let settings = SsoArgs::default().settings("https://portal.hospital.local");
        assert!(settings.unwrap().is_none());
    }

    #[test]
    fn the_issuer_is_https_except_on_this_machine() {
        assert!(refusal(&args("http://sso.hospital.local/realms/h")).contains("https://"));
        let local = args("http://127.0.0.1:4000")
            .settings("http://127.0.0.1:8080/")
            .unwrap()
            .unwrap();
        assert_eq!(
            local.redirect_url.as_str(),
            "http://127.0.0.1:8080/api/auth/oidc/callback"
        );
        assert_eq!(
            local.post_logout_url.as_str(),
            "http://127.0.0.1:8080/login"
        );
        assert_eq!(local.scopes, ["profile", "email"]);
    }

    #[test]
    fn each_missing_setting_is_named() {
        let no_id = SsoArgs {
            oidc_client_id: None,
            ..args("https://sso")
        };
        assert!(refusal(&no_id).contains("PORTAL_OIDC_CLIENT_ID"));
        let no_secret = SsoArgs {
            oidc_client_secret: None,
            ..args("https://sso")
        };
        assert!(refusal(&no_secret).contains("PORTAL_OIDC_CLIENT_SECRET"));
        let bad_rights = SsoArgs {
            oidc_group_rights: Some("/portal-admins=Superuser".into()),
            ..args("https://sso")
        };
        assert!(refusal(&bad_rights).contains("Superuser"));
    }

    #[test]
    fn the_settings_never_print_the_client_secret() {
        let settings = args("https://sso").settings("https://p").unwrap().unwrap();
        let printed = format!("{settings:?}");
        assert!(!printed.contains("client-secret-value"), "{printed}");
    }
}
