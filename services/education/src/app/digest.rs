//! The daily e-mail digest (issue 24): each person with something due gets
//! one message a day, in Russian, as plain text and HTML, with links to the
//! portal, through the hospital's SMTP relay: their courses due within 7 days
//! or overdue (education's), and the wiki's items of its bell — clearances to
//! operate equipment lapsing within 30 days, and for equipment editors the
//! maintenance due in their departments ([`super::equipment_items`]).
//!
//! Every education replica runs the job ([`Digests::spawn_daily`]): once a
//! minute, from `PORTAL_REMINDER_HOUR` in `PORTAL_TIME_ZONE` on, it sends the
//! day's digests not yet sent. Once a day per person however many replicas
//! run: before sending, a replica takes the person's lease for the day in the
//! database (`store::Claim`); the relay's acceptance is recorded as sent, a
//! failure releases the lease and the job tries again after
//! [`DigestSettings::retry_after`]. A replica that dies between the relay's
//! acceptance and the record leaves a lease that ends after [`LEASE`]: that
//! person may get the day's digest twice, never none.
//!
//! Whom mail may reach is auth's: the job walks auth's internal
//! `MailRecipientService` a page of 1,000 people at a time
//! (`ListMailRecipientsPage`: the not blocked with an address, with their
//! departments and rights). Walking everyone, rather than asking about the
//! people education has courses for, is what finds an equipment editor with
//! no course at all: who has equipment items only the wiki can say, and
//! only of people it is told about. A page costs one question to auth, one
//! query of passes and one question to the wiki (only about the page's
//! editors and holders of passes of the courses equipment requires), so a
//! hospital of 10,000 is ten of each a day; only people with something due
//! are mailed. The job runs for no person, so it carries no token: those
//! internal services, like `AccessRevocationService`, are reached only
//! inside the cluster and never forwarded by the gateway.
//!
//! The wiki away (or slow) does not hold the course items back: the people
//! of that page get their courses alone (logged), as the bell says
//! `complete: false`, and the daily job is not done for the day, so it asks
//! again each minute and those with only equipment items get theirs once the
//! wiki answers; who got the courses alone keeps that day's one digest.
//!
//! An admin's "send now" ([`Digests::send_today`]) starts a run in the
//! background and answers at once: a large hospital's run outlasts a call's
//! limit. A replica makes one run at a time, the daily job's or an admin's
//! (a press while one is going starts none); the service's shutdown stops a
//! run between two people.

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use jiff::tz::TimeZone;
use lettre::message::{Mailbox, MultiPart};
use lettre::{AsyncSmtpTransport, AsyncTransport, Message, Tokio1Executor};
use portal_kit::audit::AuditContext;
use portal_kit::db::now_millis;
use portal_kit::internal::InternalChannel;
use portal_kit::{ServiceError, ServiceResult};
use portal_proto::auth::v1::mail_recipient_service_client::MailRecipientServiceClient;
use portal_proto::auth::v1::{ListMailRecipientsPageRequest, MailRecipient};
use secrecy::{ExposeSecret, SecretString};
use tokio_util::sync::CancellationToken;

use crate::app::compliance::assess_rows;
use crate::app::equipment_items::{EquipmentItems, WikiAway};
use crate::app::notifications::due_course;
use crate::domain::date::Day;
use crate::domain::notification::{
    self, DIGEST_SUBJECT, Digest, DueCourse, EquipmentItem, MSG_MAIL_OFF,
};
use crate::store::{Claim, Store};

/// How often the job looks whether digests are due.
const TICK: Duration = Duration::from_secs(60);
/// How long a replica holds a person's digest while sending it: well over
/// the relay's time-out, so a live send is never taken over.
const LEASE: Duration = Duration::from_secs(10 * 60);
/// The relay's time-out per SMTP command.
const RELAY_TIMEOUT: Duration = Duration::from_secs(30);
/// How long one question to auth may take.
const AUTH_TIMEOUT: Duration = Duration::from_secs(10);
/// People per page of auth's (its limit).
const RECIPIENTS_PER_PAGE: i32 = 1000;
/// Assignments read per page while gathering the day's items.
const ROWS_PER_PAGE: i64 = 1000;
/// How much of a relay's refusal is kept with the delivery.
const ERROR_CHARS: usize = 500;

const MSG_AUTH_UNAVAILABLE: &str =
    "Сервис сотрудников временно недоступен, напоминания будут отправлены позже";

/// The relay and the sender, when mail is on (`PORTAL_SMTP_URL` set).
#[derive(Clone, Debug)]
pub struct MailSettings {
    /// `smtp://host:25` or `smtps://user:password@host:465`.
    pub relay: SecretString,
    /// `PORTAL_SMTP_FROM`.
    pub from: Mailbox,
}

#[derive(Clone, Debug)]
pub struct DigestSettings {
    /// Off when `None`: nothing is sent and SendDigestsNow says so.
    pub mail: Option<MailSettings>,
    /// `PORTAL_REMINDER_HOUR`, 0–23, in `time_zone`.
    pub reminder_hour: i8,
    /// `PORTAL_TIME_ZONE`: when the hour is, and which day a digest is of.
    pub time_zone: TimeZone,
    /// `PORTAL_PUBLIC_URL`, for the links.
    pub public_url: String,
    /// How long after a failed send the daily job tries again.
    pub retry_after: Duration,
}

impl DigestSettings {
    /// No mail: the bell still lists due courses; SendDigestsNow says digests are off.
    pub fn off(public_url: &str) -> DigestSettings {
        DigestSettings {
            mail: None,
            reminder_hour: 0,
            time_zone: TimeZone::UTC,
            public_url: public_url.to_owned(),
            retry_after: crate::DIGEST_RETRY_AFTER,
        }
    }
}

/// How an admin's "send now" went.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SendNow {
    /// A run started in the background.
    Started,
    /// This replica was already making a run (the daily job's or an earlier
    /// press): no second one started.
    AlreadyRunning,
}

/// What one run did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RunCounts {
    pub sent: i32,
    pub failed: i32,
    pub already_sent: i32,
    /// Held by another replica, or a failed send waiting for its retry.
    pub busy: i32,
    /// The wiki did not answer for some people: their equipment items were
    /// left out (whoever had courses got them alone).
    pub without_equipment: bool,
}

struct Relay {
    transport: AsyncSmtpTransport<Tokio1Executor>,
    from: Mailbox,
}

struct Inner {
    store: Store,
    relay: Option<Relay>,
    auth: MailRecipientServiceClient<InternalChannel>,
    equipment: EquipmentItems,
    settings: DigestSettings,
    /// The last day this replica's job finished with nothing left to send.
    finished_day: Mutex<Option<String>>,
    /// Whether a run is going on in this replica ([`Running`]).
    running: AtomicBool,
    /// The service's lifetime: runs stop with it.
    shutdown: CancellationToken,
}

/// The one run of a replica; the next may start once it is dropped.
struct Running(Arc<Inner>);

impl Drop for Running {
    fn drop(&mut self) {
        self.0.running.store(false, Ordering::Release);
    }
}

/// The digests of one replica: its daily job and the admin's "send now".
#[derive(Clone)]
pub struct Digests {
    inner: Arc<Inner>,
}

/// The transport for a relay URL; the URL's own errors name no secret.
pub fn relay_transport(
    relay: &SecretString,
) -> Result<AsyncSmtpTransport<Tokio1Executor>, lettre::transport::smtp::Error> {
    Ok(
        AsyncSmtpTransport::<Tokio1Executor>::from_url(relay.expose_secret())?
            .timeout(Some(RELAY_TIMEOUT))
            .build(),
    )
}

impl Digests {
    /// `auth`: every auth replica, asked for the recipients' addresses;
    /// `wiki`: every wiki replica, asked for the equipment items.
    /// `shutdown`: the service's, which stops its runs.
    pub fn new(
        store: Store,
        settings: DigestSettings,
        auth: InternalChannel,
        wiki: InternalChannel,
        shutdown: CancellationToken,
    ) -> Result<Digests, lettre::transport::smtp::Error> {
        let relay = match &settings.mail {
            Some(mail) => Some(Relay {
                transport: relay_transport(&mail.relay)?,
                from: mail.from.clone(),
            }),
            None => None,
        };
        Ok(Digests {
            inner: Arc::new(Inner {
                store,
                relay,
                auth: MailRecipientServiceClient::new(auth),
                equipment: EquipmentItems::new(wiki),
                settings,
                finished_day: Mutex::new(None),
                running: AtomicBool::new(false),
                shutdown,
            }),
        })
    }

    /// Runs the daily job until the service shuts down, if mail is on.
    pub fn spawn_daily(&self) {
        if self.inner.relay.is_none() {
            tracing::info!("e-mail digests are off (PORTAL_SMTP_URL is not set)");
            return;
        }
        let digests = self.clone();
        let shutdown = self.inner.shutdown.clone();
        tokio::spawn(async move {
            let mut ticks = tokio::time::interval(TICK);
            loop {
                tokio::select! {
                    () = shutdown.cancelled() => break,
                    _ = ticks.tick() => digests.tick().await,
                }
            }
        });
    }

    /// Today in the digest's time zone, and whether its hour has come.
    fn today(&self) -> (Day, bool) {
        let now = jiff::Timestamp::now().to_zoned_datetime(self.inner.settings.time_zone.clone());
        let day = Day::stored(&now.date().to_string()).unwrap_or_else(Day::today);
        (day, now.hour() >= self.inner.settings.reminder_hour)
    }

    /// This replica's one run, unless one is going on.
    fn start_run(&self) -> Option<Running> {
        self.inner
            .running
            .compare_exchange(false, true, Ordering::Acquire, Ordering::Relaxed)
            .ok()
            .map(|_| Running(self.inner.clone()))
    }

    async fn tick(&self) {
        let (day, due) = self.today();
        let key = day.to_string();
        if !due || self.finished_day().as_deref() == Some(key.as_str()) {
            return;
        }
        // An admin's run is going on: the next tick looks again.
        let Some(_running) = self.start_run() else {
            return;
        };
        match self.run(day, true, &AuditContext::system()).await {
            Ok(counts) => {
                if counts.sent > 0 || counts.failed > 0 {
                    tracing::info!(day = %key, ?counts, "daily digests");
                }
                if counts.without_equipment {
                    tracing::warn!(day = %key, "daily digests: the wiki did not answer, its items were left out; will ask again");
                }
                if counts.failed == 0 && counts.busy == 0 && !counts.without_equipment {
                    *self.lock_finished() = Some(key);
                }
            }
            Err(error) => tracing::warn!(day = %key, %error, "daily digests: will try again"),
        }
    }

    fn lock_finished(&self) -> std::sync::MutexGuard<'_, Option<String>> {
        self.inner
            .finished_day
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn finished_day(&self) -> Option<String> {
        self.lock_finished().clone()
    }

    /// The admin's "send today's digests now": a run in the background to
    /// everyone not yet sent today's, a failed send tried again at once;
    /// what it did is logged, each one sent recorded as the admin's.
    pub fn send_today(&self, audit: AuditContext) -> ServiceResult<SendNow> {
        if self.inner.relay.is_none() {
            return Err(ServiceError::conflict(MSG_MAIL_OFF).because("mail-off"));
        }
        let Some(running) = self.start_run() else {
            return Ok(SendNow::AlreadyRunning);
        };
        let digests = self.clone();
        tokio::spawn(async move {
            let _running = running;
            let (day, _) = digests.today();
            match digests.run(day, false, &audit).await {
                Ok(counts) => tracing::info!(day = %day, ?counts, "digests sent now"),
                Err(error) => tracing::warn!(day = %day, %error, "digests sent now: stopped"),
            }
        });
        Ok(SendNow::Started)
    }

    /// Sends `day`'s digests not yet sent; `wait_for_retry`: a failed send
    /// waits for its retry time. Stops before the next person once the
    /// service shuts down (a send cut in the middle would hold its lease).
    /// Each one sent is recorded in `audit`.
    async fn run(
        &self,
        day: Day,
        wait_for_retry: bool,
        audit: &AuditContext,
    ) -> ServiceResult<RunCounts> {
        let Some(relay) = &self.inner.relay else {
            return Ok(RunCounts::default());
        };
        let store = &self.inner.store;
        let courses = self.due_by_person(day).await?;
        let opted_out = store.digest_opted_out().await?;
        let mut counts = RunCounts::default();
        let required = match self.inner.equipment.required_courses().await {
            Ok(required) => Some(required),
            Err(WikiAway(status)) => {
                tracing::warn!(%status, "digest: the wiki did not answer, its items are left out");
                counts.without_equipment = true;
                None
            }
        };
        let mut after = 0;
        loop {
            let (page, last) = self.recipients_page(after).await?;
            let full = page.len() >= RECIPIENTS_PER_PAGE as usize;
            let page: Vec<MailRecipient> = page
                .into_iter()
                .filter(|recipient| !opted_out.contains(&recipient.user_id))
                .collect();
            let equipment = match &required {
                Some(required) => match self.inner.equipment.of(store, required, &page).await? {
                    Ok(equipment) => equipment,
                    Err(WikiAway(status)) => {
                        tracing::warn!(%status, "digest: the wiki did not answer for a page, its items are left out");
                        counts.without_equipment = true;
                        HashMap::new()
                    }
                },
                None => HashMap::new(),
            };
            for recipient in &page {
                if self.inner.shutdown.is_cancelled() {
                    tracing::info!(%day, ?counts, "digests: stopped by the shutdown");
                    return Ok(counts);
                }
                let items = courses
                    .get(&recipient.user_id)
                    .map_or(&[][..], Vec::as_slice);
                let equipment = equipment
                    .get(&recipient.user_id)
                    .map_or(&[][..], Vec::as_slice);
                if items.is_empty() && equipment.is_empty() {
                    continue;
                }
                self.deliver(
                    relay,
                    recipient,
                    (items, equipment),
                    (day, wait_for_retry),
                    (&mut counts, audit),
                )
                .await?;
            }
            if !full || last == 0 {
                break;
            }
            after = last;
        }
        Ok(counts)
    }

    /// Sends one person's digest of `day` unless another replica sent or
    /// holds it, counting what happened.
    async fn deliver(
        &self,
        relay: &Relay,
        recipient: &MailRecipient,
        (items, equipment): (&[DueCourse], &[EquipmentItem]),
        (day, wait_for_retry): (Day, bool),
        (counts, audit): (&mut RunCounts, &AuditContext),
    ) -> ServiceResult<()> {
        let store = &self.inner.store;
        let day_key = day.to_string();
        let message = match self.message(relay, recipient, items, equipment) {
            Ok(message) => message,
            Err(error) => {
                tracing::warn!(user_id = recipient.user_id, %error, "digest: address refused, not sent");
                return Ok(());
            }
        };
        let now = now_millis();
        let lease_until = now + millis(LEASE);
        match store
            .claim_digest(
                recipient.user_id,
                &day_key,
                now,
                lease_until,
                wait_for_retry,
            )
            .await?
        {
            Claim::AlreadySent => counts.already_sent += 1,
            Claim::Busy => counts.busy += 1,
            Claim::Taken => match relay.transport.send(message).await {
                Ok(_) => {
                    store
                        .digest_sent(recipient.user_id, &day_key, now_millis(), audit)
                        .await?;
                    counts.sent += 1;
                }
                Err(error) => {
                    let now = now_millis();
                    let retry_at = now + millis(self.inner.settings.retry_after);
                    let error: String = error.to_string().chars().take(ERROR_CHARS).collect();
                    tracing::warn!(user_id = recipient.user_id, %error, "digest: the relay did not take it, will retry");
                    store
                        .digest_failed(recipient.user_id, &day_key, (now, retry_at), &error)
                        .await?;
                    counts.failed += 1;
                }
            },
        }
        Ok(())
    }

    /// Every person's due courses on `day`, by user id.
    async fn due_by_person(&self, day: Day) -> ServiceResult<BTreeMap<i64, Vec<DueCourse>>> {
        let mut due: BTreeMap<i64, Vec<DueCourse>> = BTreeMap::new();
        let mut after = (0, 0);
        loop {
            let rows = self
                .inner
                .store
                .compliance_rows(0, after, ROWS_PER_PAGE)
                .await?;
            let Some(last) = rows.last() else {
                break;
            };
            after = (last.course_id, last.user_id);
            let assessed = assess_rows(&self.inner.store, rows, day).await?;
            for course in assessed
                .iter()
                .filter_map(|(row, assessment)| due_course(row, assessment))
            {
                due.entry(course.user_id).or_default().push(course);
            }
        }
        for items in due.values_mut() {
            notification::sort(items);
        }
        Ok(due)
    }

    /// A page of those mail may reach (auth's answer) with ids above
    /// `after`, and the page's last id.
    async fn recipients_page(&self, after: i64) -> ServiceResult<(Vec<MailRecipient>, i64)> {
        let mut request = tonic::Request::new(ListMailRecipientsPageRequest {
            after_user_id: after,
            page_size: RECIPIENTS_PER_PAGE,
        });
        portal_kit::deadline::limit(&mut request, AUTH_TIMEOUT);
        let reply = self
            .inner
            .auth
            .clone()
            .list_mail_recipients_page(request)
            .await
            .map_err(|status| {
                tracing::warn!(%status, "digest: auth's recipients not read");
                ServiceError::Unavailable(MSG_AUTH_UNAVAILABLE.into())
            })?
            .into_inner();
        Ok((reply.recipients, reply.last_user_id))
    }

    fn message(
        &self,
        relay: &Relay,
        recipient: &MailRecipient,
        items: &[DueCourse],
        equipment: &[EquipmentItem],
    ) -> Result<Message, Box<dyn std::error::Error + Send + Sync>> {
        let greeting_name = [recipient.name.as_str(), recipient.last_name.as_str()]
            .iter()
            .filter(|part| !part.is_empty())
            .copied()
            .collect::<Vec<_>>()
            .join(" ");
        let digest = Digest {
            greeting_name,
            items,
            equipment,
            portal_url: self.inner.settings.public_url.trim_end_matches('/'),
        };
        let to = Mailbox::new(None, recipient.email.parse()?);
        Ok(Message::builder()
            .from(relay.from.clone())
            .to(to)
            .subject(DIGEST_SUBJECT)
            .multipart(MultiPart::alternative_plain_html(
                digest.plain_text(),
                digest.html(),
            ))?)
    }
}

fn millis(duration: Duration) -> i64 {
    i64::try_from(duration.as_millis()).unwrap_or(i64::MAX)
}
