//! The mail of «Забыли пароль?» (issue 39.3): a one-time link sent through the
//! hospital's SMTP relay, the one the education digests use
//! (`PORTAL_SMTP_URL`, `PORTAL_SMTP_FROM`).

use std::time::Duration;

use lettre::message::{Mailbox, MultiPart, SinglePart};
use lettre::{AsyncSmtpTransport, AsyncTransport, Message, Tokio1Executor};
use secrecy::{ExposeSecret, SecretString};

use crate::domain::secret::SecretToken;

pub const RESET_SUBJECT: &str = "Восстановление пароля — Портал сотрудников";
/// The page of the web app the link opens.
pub const RESET_PAGE: &str = "/reset-password";
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

    /// Sends the link to `email` in the background: the answer to the request
    /// neither waits for the relay nor tells by its time whether a link went.
    pub fn send(&self, user_id: i64, email: &str, token: &SecretToken) {
        let Some((transport, from)) = self.relay.clone() else {
            return;
        };
        let message = match message(&from, email, &self.link(token)) {
            Ok(message) => message,
            Err(error) => {
                tracing::error!(user_id, %error, "a password reset mail cannot be made");
                return;
            }
        };
        tokio::spawn(async move {
            match transport.send(message).await {
                Ok(_) => tracing::info!(user_id, "password reset link sent"),
                Err(error) => {
                    tracing::warn!(user_id, %error, "the relay refused a password reset mail")
                }
            }
        });
    }
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

fn message(
    from: &Mailbox,
    email: &str,
    link: &str,
) -> Result<Message, Box<dyn std::error::Error + Send + Sync>> {
    let to = Mailbox::new(None, email.trim().parse()?);
    Ok(Message::builder()
        .from(from.clone())
        .to(to)
        .subject(RESET_SUBJECT)
        .multipart(MultiPart::alternative().singlepart(SinglePart::plain(body(link))))?)
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
    fn the_body_says_how_long_the_link_works() {
        let text = body("https://portal/reset-password?token=abc");
        assert!(text.contains("https://portal/reset-password?token=abc\n"));
        assert!(text.contains(
            "Ссылка действует 30 минут. Если вы не запрашивали восстановление, ничего делать не нужно."
        ));
    }
}
