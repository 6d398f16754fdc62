//! Who may be invited to choose a first password, or given a printed code,
//! and what a refusal tells the administrator (issue 39.3).

use std::time::Duration;

use portal_kit::ServiceError;

/// Why a person is not sent an invitation (or given a code).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Skip {
    /// They have a password already: «Забыли пароль?» is theirs.
    HasPassword,
    NoEmail,
    Blocked,
    /// The portal has no mail relay (`PORTAL_SMTP_URL`).
    MailOff,
}

pub const MSG_HAS_PASSWORD: &str = "У сотрудника уже есть пароль: приглашение и код для первого входа не нужны. \
     Забытый пароль восстанавливается по ссылке «Забыли пароль?» на странице входа.";
pub const MSG_NO_EMAIL: &str =
    "У сотрудника не указана электронная почта: выдайте ему код для первого входа.";
pub const MSG_BLOCKED: &str =
    "Учётная запись сотрудника заблокирована: сначала смените его статус.";
pub const MSG_MAIL_OFF: &str = "Почта портала не настроена (PORTAL_SMTP_URL): приглашение отправить нельзя, \
     выдайте код для первого входа.";
pub const MSG_CODE_INVALID: &str = "Неверный логин или код для первого входа, либо срок действия кода истёк. \
     Проверьте написание или попросите администратора выдать новый код.";
pub const MSG_TOO_MANY_CODES: &str = "Слишком много неверных кодов для этого логина. \
     Попробуйте через час или попросите администратора выдать новый код.";
pub const MSG_CODE_REQUIRED: &str = "Введите логин, код для первого входа и новый пароль";
/// The stable reason of a wrong, used or expired code.
pub const REASON_CODE_INVALID: &str = "first-sign-in-code-invalid";
/// The audit reason of a wrong code entered with a known login.
pub const REASON_WRONG_CODE: &str = "wrong-code";

impl Skip {
    /// The stable reason, in answers and refusals.
    pub fn reason(self) -> &'static str {
        match self {
            Skip::HasPassword => "has-password",
            Skip::NoEmail => "no-email",
            Skip::Blocked => "blocked",
            Skip::MailOff => "mail-off",
        }
    }

    /// Why, for the administrator's list of those skipped.
    pub fn message(self) -> &'static str {
        match self {
            Skip::HasPassword => "уже есть пароль",
            Skip::NoEmail => "не указана электронная почта",
            Skip::Blocked => "учётная запись заблокирована",
            Skip::MailOff => "почта портала не настроена",
        }
    }

    /// The refusal of a call about this one person.
    pub fn refusal(self) -> ServiceError {
        let (message, reason) = match self {
            Skip::HasPassword => (MSG_HAS_PASSWORD, "invitation-has-password"),
            Skip::NoEmail => (MSG_NO_EMAIL, "invitation-no-email"),
            Skip::Blocked => (MSG_BLOCKED, "invitation-blocked"),
            Skip::MailOff => (MSG_MAIL_OFF, "mail-off"),
        };
        ServiceError::conflict(message).because(reason)
    }
}

/// A person as the rules of a first sign-in see them.
#[derive(Clone, Copy, Debug)]
pub struct Candidate<'a> {
    pub has_password: bool,
    pub email: &'a str,
    pub blocked: bool,
}

impl Candidate<'_> {
    /// Whether they may be given a printed code: no password, not blocked.
    pub fn for_code(self) -> Result<(), Skip> {
        if self.blocked {
            Err(Skip::Blocked)
        } else if self.has_password {
            Err(Skip::HasPassword)
        } else {
            Ok(())
        }
    }

    /// Whether they may be mailed an invitation: as for a code, and an
    /// e-mail address and a relay to send by.
    pub fn for_invitation(self, mail_on: bool) -> Result<(), Skip> {
        self.for_code()?;
        if self.email.trim().is_empty() {
            Err(Skip::NoEmail)
        } else if !mail_on {
            Err(Skip::MailOff)
        } else {
            Ok(())
        }
    }
}

/// A wrong, used or expired code, or one not for this login.
pub fn code_invalid() -> ServiceError {
    ServiceError::conflict(MSG_CODE_INVALID).because(REASON_CODE_INVALID)
}

/// Too many wrong codes for this login from this address, or from it.
pub fn too_many_codes(retry_after: Duration) -> ServiceError {
    ServiceError::RateLimited {
        message: MSG_TOO_MANY_CODES.into(),
        retry_after,
    }
}

/// Surname, name and patronymic as a person reads them.
pub fn full_name(surname: &str, name: &str, last_name: &str) -> String {
    [surname, name, last_name]
        .into_iter()
        .map(str::trim)
        .filter(|part| !part.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    const READY: Candidate<'static> = Candidate {
        has_password: false,
        email: "nurse@hospital.example",
        blocked: false,
    };

    #[test]
    fn a_blocked_person_is_refused_first_then_one_with_a_password() {
        let both = Candidate {
            has_password: true,
            blocked: true,
            ..READY
        };
        assert_eq!(both.for_invitation(true), Err(Skip::Blocked));
        let with_password = Candidate {
            has_password: true,
            ..READY
        };
        assert_eq!(with_password.for_code(), Err(Skip::HasPassword));
        assert_eq!(READY.for_invitation(true), Ok(()));
    }

    #[test]
    fn an_invitation_needs_an_address_and_a_relay_a_code_neither() {
        let mailless = Candidate {
            email: "  ",
            ..READY
        };
        assert_eq!(mailless.for_invitation(true), Err(Skip::NoEmail));
        assert_eq!(mailless.for_code(), Ok(()));
        assert_eq!(READY.for_invitation(false), Err(Skip::MailOff));
    }

    #[test]
    fn a_full_name_leaves_out_what_is_empty() {
        assert_eq!(
            full_name("Смирнова", "Ольга", "Викторовна"),
            "Смирнова Ольга Викторовна"
        );
        assert_eq!(full_name("Смирнова", "Ольга", ""), "Смирнова Ольга");
    }
}
