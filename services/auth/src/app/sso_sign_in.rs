//! Single sign-on's part of a sign-in (issue 39.2): a flow kept between its
//! start and its callback, the provider's verified [`Identity`] matched to a
//! portal person (or one created), and the rights of its groups set. The
//! session is then [`crate::app::sessions::Sessions::sign_in_by_sso`]'s.

use std::time::Duration;

use portal_kit::audit::{AuditActor, AuditContext};
use portal_kit::db::now_millis;
use portal_kit::{ServiceError, ServiceResult};

use crate::app::directory_sign_in::{NewPerson, REASON_NOT_IN_PORTAL, create_person};
use crate::domain::login::{LoginKey, MAX_LOGIN_CHARS};
use crate::domain::secret::SecretToken;
use crate::sso::{Begun, Identity, MSG_SSO_FAILED, SingleSignOn};
use crate::store::Store;
use crate::store::sso::Flow;
use crate::store::user::Credentials;

/// Shown only after the provider signed the person in, so it tells a guesser nothing.
pub const MSG_SSO_NOT_IN_PORTAL: &str =
    "Вход выполнен, но вашей учётной записи нет на портале. Обратитесь к администратору портала.";
pub const MSG_SSO_OFF: &str = "Единый вход на этом портале не настроен";
pub const REASON_SSO_OFF: &str = "sso-off";
pub const REASON_SSO_FLOW_INVALID: &str = "sso-flow-invalid";
pub const REASON_SSO_CANCELLED: &str = "sso-cancelled";
pub const MSG_SSO_CANCELLED: &str = "Вход через единую учётную запись отменён.";
/// How long a person may take at the provider's sign-in page.
const FLOW_TTL: Duration = Duration::from_secs(600);

/// The person a single sign-on found, and what the provider said of them.
pub struct SsoFound {
    pub user: Credentials,
    /// The provider checked a second factor (`amr`/`acr`).
    pub provider_second_factor: bool,
    /// The provider's session (`sid`, "" if it named none).
    pub sso_session: String,
}

/// A finished callback: the person and the path they asked for.
pub struct Finished {
    pub found: SsoFound,
    pub return_to: String,
}

#[derive(Clone)]
pub struct SsoSignIn {
    sso: SingleSignOn,
    store: Store,
}

impl SsoSignIn {
    pub fn new(sso: SingleSignOn, store: Store) -> SsoSignIn {
        SsoSignIn { sso, store }
    }

    pub fn sso(&self) -> &SingleSignOn {
        &self.sso
    }

    /// Begins a flow for a person who asked for `return_to` (a path of the
    /// portal's own; anything else becomes `/`).
    pub async fn start(&self, return_to: &str) -> ServiceResult<Begun> {
        let begun = self.sso.begin().await?;
        let now = now_millis();
        let flow = Flow {
            nonce: begun.nonce.clone(),
            pkce_verifier: begun.pkce_verifier.clone(),
            return_to: own_path(return_to).to_owned(),
        };
        let state = SecretToken::from_client(&begun.state).hash();
        self.store
            .save_sso_flow(&state, &flow, now, now + millis(FLOW_TTL))
            .await?;
        Ok(begun)
    }

    /// The person of a callback (`code` or the provider's `error`, and the
    /// flow's `state`), every refusal recorded in the audit log in `context`.
    pub async fn finish(
        &self,
        code: &str,
        state: &str,
        error: &str,
        context: &AuditContext,
    ) -> ServiceResult<Finished> {
        let state = SecretToken::from_client(state);
        let flow = if state.is_empty() {
            None
        } else {
            self.store
                .take_sso_flow(&state.hash(), now_millis())
                .await?
        };
        let Some(flow) = flow else {
            return Err(ServiceError::Unauthenticated(MSG_SSO_FAILED.into())
                .because(REASON_SSO_FLOW_INVALID));
        };
        if !error.is_empty() || code.is_empty() {
            tracing::info!(error, "the OpenID provider answered an error");
            return Err(ServiceError::Unauthenticated(MSG_SSO_CANCELLED.into())
                .because(REASON_SSO_CANCELLED));
        }
        let identity = self
            .sso
            .finish(code, &flow.pkce_verifier, &flow.nonce)
            .await?;
        let tried = context.acting_as(AuditActor::Anonymous {
            login: identity
                .preferred_username
                .as_ref()
                .map(|login| login.chars().take(MAX_LOGIN_CHARS).collect()),
        });
        let user = match self.person(&identity, &tried).await? {
            Some(user) => user,
            None => {
                self.store
                    .record_refused_sign_in(&tried, None, REASON_NOT_IN_PORTAL)
                    .await?;
                tracing::info!(
                    subject = identity.subject,
                    "an SSO subject is not in the portal"
                );
                return Err(ServiceError::Unauthenticated(MSG_SSO_NOT_IN_PORTAL.into())
                    .because(REASON_NOT_IN_PORTAL));
            }
        };
        let now = now_millis();
        self.store
            .link_sso_subject(&identity.issuer, &identity.subject, user.user_id, now)
            .await?;
        let rights = &self.sso.settings().group_rights;
        // A blocked person's sign-in is refused next: their rights stay.
        if !user.blocked && !rights.is_empty() {
            let acting = tried.acting_as(AuditActor::Person(user.user_id));
            self.store
                .set_directory_rights(
                    &acting,
                    user.user_id,
                    &rights.given(&identity.groups),
                    &rights.managed(),
                    now,
                )
                .await?;
        }
        Ok(Finished {
            found: SsoFound {
                user,
                provider_second_factor: identity.second_factor,
                sso_session: identity.session.unwrap_or_default(),
            },
            return_to: flow.return_to,
        })
    }

    /// The person of a verified identity: the one its subject signed in as
    /// before, else the one holding its employee number, else the one of its
    /// `preferred_username` (not linked to another number); created when
    /// PORTAL_OIDC_CREATE_PEOPLE says so.
    async fn person(
        &self,
        identity: &Identity,
        tried: &AuditContext,
    ) -> ServiceResult<Option<Credentials>> {
        if let Some(user) = self
            .store
            .sso_person(&identity.issuer, &identity.subject)
            .await?
        {
            return Ok(Some(user));
        }
        let login = identity.preferred_username.as_deref().unwrap_or_default();
        let found = self
            .store
            .directory_person(identity.match_value.as_deref(), &LoginKey::of(login))
            .await?;
        if found.is_some() || !self.sso.settings().create_people || login.is_empty() {
            return Ok(found);
        }
        let person = NewPerson {
            login,
            given_name: identity.given_name.as_deref(),
            surname: identity.family_name.as_deref(),
            employee_number: identity.match_value.as_deref(),
        };
        create_person(&self.store, &person, tried).await.map(Some)
    }
}

/// A path of the portal's own (`/…`, not `//host`), else home.
fn own_path(path: &str) -> &str {
    let own = path.starts_with('/')
        && !path.starts_with("//")
        && !path.starts_with("/\\")
        && !path.chars().any(char::is_control)
        && path.len() <= 2000;
    if own { path } else { "/" }
}

fn millis(duration: Duration) -> i64 {
    i64::try_from(duration.as_millis()).unwrap_or(i64::MAX)
}

#[cfg(test)]
mod tests {
    use super::own_path;

    #[test]
    fn only_the_portals_own_paths_are_returned_to() {
        assert_eq!(own_path("/education/3?tab=1"), "/education/3?tab=1");
        assert_eq!(own_path("//evil.example/x"), "/");
        assert_eq!(own_path("/\\evil.example"), "/");
        assert_eq!(own_path("https://evil.example"), "/");
        assert_eq!(own_path(""), "/");
    }
}
