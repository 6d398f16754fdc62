//! The mail of «Забыли пароль?» and of invitations (issue 39.3): a one-time
//! link sent through the hospital's SMTP relay, the one the education
//! digests use (`PORTAL_SMTP_URL`, `PORTAL_SMTP_FROM`).

use std::time::Duration;

use lettre::message::{Mailbox, MultiPart, SinglePart};
use lettre::{AsyncSmtpTransport, AsyncTransport, Message, Tokio1Executor};
use secrecy::{ExposeSecret, SecretString};

use crate::domain::secret::SecretToken;

pub const RESET_SUBJECT: &str = "Восстановление пароля — Портал сотрудников";
/// The page of the web app the link opens.
pub const RESET_PAGE: &str = "/reset-password";
pub const INVITATION_SUBJECT: &str = "Приглашение на Портал сотрудников";
/// The page a printed first sign-in code is entered on; an invitation's link
/// opens it with its token («Добро пожаловать в портал»).
pub const FIRST_SIGN_IN_PAGE: &str = "/first-sign-in";
/// The relay's time-out per SMTP command.
const RELAY_TIMEOUT: Duration = Duration::from_secs(30);

/// The relay and the sender, when mail is on.
#[derive(Clone, Debug)]
pub struct MailRelay {
    /// `smtp://host:25` or `smtps://user:password@host:465`.
    pub relay: SecretString,
    /// `PORTAL_SMTP_FROM`.
    pub from: Mailbox,
}

/// Sends the links, or nothing when the portal has no relay.
#[derive(Clone)]
pub struct ResetMail {
    relay: Option<(AsyncSmtpTransport<Tokio1Executor>, Mailbox)>,
    public_url: String,
}

impl ResetMail {
    /// `public_url`: `PORTAL_PUBLIC_URL`, where the link leads.
    pub fn new(
        relay: Option<&MailRelay>,
        public_url: &str,
    ) -> Result<ResetMail, lettre::transport::smtp::Error> {
        let relay = match relay {
            Some(mail) => Some((
                AsyncSmtpTransport::<Tokio1Executor>::from_url(mail.relay.expose_secret())?
                    .timeout(Some(RELAY_TIMEOUT))
                    .build(),
                mail.from.clone(),
            )),
            None => None,
        };
        Ok(ResetMail {
            relay,
            public_url: public_url.trim_end_matches('/').to_owned(),
        })
    }

    pub fn is_on(&self) -> bool {
        self.relay.is_some()
    }

    /// The link carrying `token`.
    pub fn link(&self, token: &SecretToken) -> String {
        format!(
            "{}{RESET_PAGE}?token={}",
            self.public_url,
            token.clone().into_string()
        )
    }

    /// An invitation's link: the login rides along so that the page can
    /// sign the person in once they have chosen a password.
    pub fn invitation_link(&self, token: &SecretToken, login: &str) -> String {
        format!(
            "{}{FIRST_SIGN_IN_PAGE}?token={}&login={}",
            self.public_url,
            token.clone().into_string(),
            query_value(login)
        )
    }

    /// Where a printed first sign-in code is entered.
    pub fn first_sign_in_url(&self) -> String {
        format!("{}{FIRST_SIGN_IN_PAGE}", self.public_url)
    }

    /// Sends the link to `email` in the background: the answer to the request
    /// neither waits for the relay nor tells by its time whether a link went.
    pub fn send(&self, user_id: i64, email: &str, token: &SecretToken) {
        let letter = Letter {
            user_id,
            email,
            subject: RESET_SUBJECT,
            body: body(&self.link(token)),
        };
        self.deliver(vec![letter], "password reset link");
    }

    /// Mails each invitation in the background, one after another on the
    /// relay's connection: a sync's thousands never open thousands at once.
    pub fn send_invitations(&self, invitations: &[Invitation<'_>]) {
        let letters = invitations
            .iter()
            .map(|i| Letter {
                user_id: i.user_id,
                email: i.email,
                subject: INVITATION_SUBJECT,
                body: invitation_body(
                    i.addressed_as,
                    i.login,
                    &self.invitation_link(i.token, i.login),
                ),
            })
            .collect();
        self.deliver(letters, "invitation");
    }

    fn deliver(&self, letters: Vec<Letter<'_>>, what: &'static str) {
        let Some((transport, from)) = self.relay.clone() else {
            return;
        };
        let mut messages = Vec::with_capacity(letters.len());
        for letter in letters {
            match message(&from, &letter) {
                Ok(message) => messages.push((letter.user_id, message)),
                Err(error) => {
                    tracing::error!(user_id = letter.user_id, %error, what, "a mail cannot be made")
                }
            }
        }
        tokio::spawn(async move {
            for (user_id, message) in messages {
                match transport.send(message).await {
                    Ok(_) => tracing::info!(user_id, what, "mail sent"),
                    Err(error) => {
                        tracing::warn!(user_id, %error, what, "the relay refused a mail")
                    }
                }
            }
        });
    }
}

/// An invitation to mail.
pub struct Invitation<'a> {
    pub user_id: i64,
    pub email: &'a str,
    /// Name and patronymic.
    pub addressed_as: &'a str,
    pub login: &'a str,
    pub token: &'a SecretToken,
}

/// One mail: to whom, about what.
struct Letter<'a> {
    user_id: i64,
    email: &'a str,
    subject: &'static str,
    body: String,
}

/// `value` percent-encoded for a URL's query (RFC 3986's unreserved kept).
fn query_value(value: &str) -> String {
    value
        .bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                char::from(b).to_string()
            }
            other => format!("%{other:02X}"),
        })
        .collect()
}

/// The plain-text mail of a link.
pub fn body(link: &str) -> String {
    format!(
        "Здравствуйте!\n\n\
         Чтобы задать новый пароль для входа на Портал сотрудников, откройте ссылку:\n\
         {link}\n\n\
         Ссылка действует 30 минут. Если вы не запрашивали восстановление, ничего делать не нужно.\n"
    )
}

/// The plain-text mail of an invitation.
pub fn invitation_body(addressed_as: &str, login: &str, link: &str) -> String {
    format!(
        "Здравствуйте, {addressed_as}!\n\n\
         Для вас создана учётная запись на Портале сотрудников. Ваш логин: {login}\n\n\
         Чтобы задать пароль и войти, откройте ссылку:\n\
         {link}\n\n\
         Ссылка действует 72 часа и только один раз. Если срок истёк, попросите администратора \
         отправить приглашение ещё раз.\n"
    )
}

fn message(
    from: &Mailbox,
    letter: &Letter<'_>,
) -> Result<Message, Box<dyn std::error::Error + Send + Sync>> {
    let to = Mailbox::new(None, letter.email.trim().parse()?);
    Ok(Message::builder()
        .from(from.clone())
        .to(to)
        .subject(letter.subject)
        .multipart(MultiPart::alternative().singlepart(SinglePart::plain(letter.body.clone())))?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_link_leads_to_the_portals_page() {
        let mail = ResetMail::new(None, "https://portal.hospital.example/").unwrap();
        let token = SecretToken::from_client("abc");
        assert_eq!(
            mail.link(&token),
            "https://portal.hospital.example/reset-password?token=abc"
        );
        assert!(!mail.is_on());
    }

    #[test]
    fn an_invitation_carries_the_login_and_says_how_long_it_works() {
        let mail = ResetMail::new(None, "https://portal.hospital.example").unwrap();
        let token = SecretToken::from_client("abc");
        let link = mail.invitation_link(&token, "smirnova.o v");
        assert_eq!(
            link,
            "https://portal.hospital.example/first-sign-in?token=abc&login=smirnova.o%20v"
        );
        let text = invitation_body("Ольга Петровна", "smirnova.o", &link);
        assert!(text.contains("Ваш логин: smirnova.o\n"), "{text}");
        assert!(text.contains(&format!("{link}\n")), "{text}");
        assert!(
            text.contains("Ссылка действует 72 часа и только один раз."),
            "{text}"
        );
        assert_eq!(
            mail.first_sign_in_url(),
            "https://portal.hospital.example/first-sign-in"
        );
    }

    #[test]
    fn the_body_says_how_long_the_link_works() {
        let text = body("https://portal/reset-password?token=abc");
        assert!(text.contains("https://portal/reset-password?token=abc\n"));
        assert!(text.contains(
            "Ссылка действует 30 минут. Если вы не запрашивали восстановление, ничего делать не нужно."
        ));
    }
}
