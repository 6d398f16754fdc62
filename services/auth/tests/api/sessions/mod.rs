//! Sign-in, rate limiting, refresh-token rotation and the ends of sessions.

mod refresh;

use portal_kit::db::Backend;
use portal_kit::error::RETRY_AFTER_KEY;
use portal_kit::net::TrustedProxies;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use futures_util::StreamExt;

use portal_auth::domain::login::LoginKey;
use portal_auth::domain::password::QUEUE_LIMIT;
use portal_auth::domain::rate_limit::{
    DEVICE_MAX_FAILURES, LOGIN_BACKSTOP_FAILURES, PAIR_MAX_FAILURES,
};
use portal_auth::store::Store;
use portal_proto::auth::v1 as pb;
use sqlx::any::AnyPoolOptions;
use tonic::Code;

use crate::helpers::*;

const BAD_CREDENTIALS: &str = "Неверный логин или пароль";
const TOO_MANY: &str = "Слишком много неудачных попыток входа. Попробуйте позже.";
const BLOCKED: &str = "Учётная запись заблокирована. Обратитесь к администратору.";

#[tokio::test]
async fn a_user_signs_in_with_the_right_password() {
    on_each_backend(false, |app| async move {
        let department = app.create_department("Хирургическое отделение", &[]).await;
        let nurse = app
            .staff(
                "Nurse",
                "nurse-password",
                &[RIGHT_EDUCATION_MANAGEMENT],
                &[department.id],
            )
            .await;

        let tokens = app
            .login("nurse", "nurse-password")
            .await
            .expect("sign in, whatever the login's case");
        assert_eq!(tokens.expires_in, 900);
        assert_eq!(tokens.refresh_token.len(), 43);
        let claims = app
            .keys
            .verifier
            .verify(&tokens.access_token)
            .expect("a token signed by auth");
        assert_eq!(claims.user_id, nurse.id);
        assert_eq!(claims.login, "Nurse");
        assert_eq!(
            (claims.name.as_str(), claims.surname.as_str()),
            ("Ольга", "Смирнова")
        );
        assert_eq!(claims.last_name, "Викторовна");
        assert_eq!(claims.rights, ["EducationManagement"]);
        assert_eq!(claims.departments, [department.id]);

        let me = app
            .client
            .clone()
            .get_me(authed(pb::GetMeRequest {}, &tokens.access_token))
            .await
            .unwrap();
        assert_eq!(me.into_inner().user.unwrap().id, nurse.id);
    })
    .await;
}

#[tokio::test]
async fn a_wrong_password_and_an_unknown_login_answer_alike() {
    on_each_backend(false, |app| async move {
        app.staff("nurse", "nurse-password", &[], &[]).await;
        let wrong_password = app.login("nurse", "not-the-password").await;
        let unknown_login = app.login("nobody", "nurse-password").await;
        assert_status(wrong_password, Code::Unauthenticated, BAD_CREDENTIALS);
        assert_status(unknown_login, Code::Unauthenticated, BAD_CREDENTIALS);
        assert_status(
            app.login("", "x").await,
            Code::InvalidArgument,
            "Введите логин и пароль",
        );
    })
    .await;
}

fn retry_after_seconds(status: &tonic::Status) -> u64 {
    status
        .metadata()
        .get(RETRY_AFTER_KEY)
        .expect("Retry-After")
        .to_str()
        .unwrap()
        .parse()
        .unwrap()
}

#[tokio::test]
async fn guesses_at_a_login_stop_the_guessers_address_never_the_person_elsewhere() {
    on_each_backend(false, |app| async move {
        app.staff("nurse", "nurse-password", &[], &[]).await;
        app.staff("doctor", "doctor-password", &[], &[]).await;
        let mut client = app.client.clone();
        // The nurse's ward PC signed in yesterday and keeps its device token.
        let device = app
            .login("nurse", "nurse-password")
            .await
            .unwrap()
            .device_token;
        assert_eq!(device.len(), 43);

        let attacker = "198.51.100.1";
        let mut checked = 0;
        for _ in 0..20 {
            let answer = client
                .login(from_address(login_request("nurse", "guess"), attacker))
                .await;
            if code(&answer) == Code::Unauthenticated {
                checked += 1;
            }
        }
        assert_eq!(
            checked, PAIR_MAX_FAILURES,
            "guesses checked from one address"
        );
        let limited = client
            .login(from_address(
                login_request("nurse", "nurse-password"),
                attacker,
            ))
            .await
            .unwrap_err();
        assert_eq!(limited.code(), Code::ResourceExhausted);
        assert_eq!(limited.message(), TOO_MANY);
        let wait = retry_after_seconds(&limited);
        assert!((1..=15).contains(&wait), "retry after {wait}s");

        // The nurse on a PC she never used, at another address, gets in...
        let new_device = client
            .login(from_address(
                login_request("nurse", "nurse-password"),
                "198.51.100.2",
            ))
            .await;
        assert!(new_device.is_ok(), "{new_device:?}");
        // ...and so does her own browser, anywhere.
        let own = client
            .login(from_address(
                login_from_device("nurse", "nurse-password", &device),
                attacker,
            ))
            .await
            .expect("the nurse's own browser signs in")
            .into_inner();
        assert_eq!(own.device_token, device);
        // A device token of the nurse's does not help a guess at the doctor.
        for _ in 0..5 {
            let _ = client
                .login(from_address(login_request("doctor", "guess"), attacker))
                .await;
        }
        let borrowed = client
            .login(from_address(
                login_from_device("doctor", "doctor-password", &device),
                attacker,
            ))
            .await;
        assert_status(borrowed, Code::ResourceExhausted, TOO_MANY);
    })
    .await;
}

#[tokio::test]
async fn a_storm_of_guesses_from_rotating_addresses_never_stops_a_colleague_on_a_new_pc() {
    on_each_backend(false, |app| async move {
        app.staff("nurse", "nurse-password", &[], &[]).await;
        // More failures than the backstop, from 60 addresses: each pair stays
        // under its own limit, the login passes its backstop.
        let guesses = (0..LOGIN_BACKSTOP_FAILURES + 12).map(|i| {
            let mut client = app.client.clone();
            let address = format!("203.0.113.{}", i % 60);
            async move {
                client
                    .login(from_address(login_request("nurse", "guess"), &address))
                    .await
            }
        });
        let mut storm = futures_util::stream::iter(guesses).buffer_unordered(6);
        let mut checked = 0;
        // The colleague signs in halfway through, on a PC the nurse never used.
        let mut colleague = None;
        while let Some(answer) = storm.next().await {
            if code(&answer) == Code::Unauthenticated {
                checked += 1;
            }
            if checked == LOGIN_BACKSTOP_FAILURES - 10 && colleague.is_none() {
                let mut client = app.client.clone();
                colleague = Some(tokio::spawn(async move {
                    client
                        .login(from_address(
                            login_request("nurse", "nurse-password"),
                            "192.0.2.77",
                        ))
                        .await
                }));
            }
        }
        let signed_in = colleague.expect("the storm ran").await.unwrap();
        assert!(signed_in.is_ok(), "{signed_in:?}");
        // After the storm, past the backstop, a right password still gets in.
        let after = app
            .client
            .clone()
            .login(from_address(
                login_request("nurse", "nurse-password"),
                "192.0.2.78",
            ))
            .await;
        assert!(after.is_ok(), "{after:?}");
    })
    .await;
}

#[tokio::test]
async fn a_persons_own_browser_signs_in_while_guesses_fill_the_hashing_queue() {
    on_each_backend(false, |app| async move {
        app.staff("nurse", "nurse-password", &[], &[]).await;
        let device = app
            .login("nurse", "nurse-password")
            .await
            .unwrap()
            .device_token;
        // Strangers guess from rotating addresses until told to stop, enough of
        // them to keep every hashing slot busy and the queue full.
        let stop = Arc::new(AtomicBool::new(false));
        let turned_away = Arc::new(AtomicUsize::new(0));
        let strangers: Vec<_> = (0..3 * QUEUE_LIMIT)
            .map(|stranger| {
                let (mut client, stop, turned_away) =
                    (app.client.clone(), stop.clone(), turned_away.clone());
                tokio::spawn(async move {
                    for i in 0.. {
                        if stop.load(Ordering::Relaxed) {
                            break;
                        }
                        let address = format!("198.18.{stranger}.{}", i % 250 + 1);
                        let guess = login_request(&format!("guess{stranger}-{i}"), "wrong");
                        let answer = client.login(from_address(guess, &address)).await;
                        if answer.is_err_and(|status| status.code() == Code::Unavailable) {
                            turned_away.fetch_add(1, Ordering::Relaxed);
                            // Come back soon, as a guessing script does.
                            tokio::time::sleep(Duration::from_millis(10)).await;
                        }
                    }
                })
            })
            .collect();
        while turned_away.load(Ordering::Relaxed) < QUEUE_LIMIT {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }

        // The queue is full: a guess is turned away at once, the nurse's own
        // browser takes the next free slot.
        let own = app
            .client
            .clone()
            .login(login_from_device("nurse", "nurse-password", &device))
            .await;
        stop.store(true, Ordering::Relaxed);
        for stranger in strangers {
            stranger.await.unwrap();
        }
        let own = own.expect("the nurse's own browser signs in").into_inner();
        assert_eq!(own.device_token, device);
    })
    .await;
}

#[tokio::test]
async fn a_known_devices_sign_in_queries_its_own_connections_when_the_shared_pool_is_taken() {
    on_each_backend(false, |app| async move {
        app.staff("nurse", "nurse-password", &[], &[]).await;
        let url = app.database.url.as_str();
        let shared = AnyPoolOptions::new()
            .max_connections(1)
            .connect(url)
            .await
            .unwrap();
        let lane = AnyPoolOptions::new()
            .max_connections(1)
            .connect(url)
            .await
            .unwrap();
        let store = Store::new(shared.clone(), lane, app.backend);
        // Every shared connection is busy with strangers' guesses.
        let _taken = shared.acquire().await.unwrap();

        let nurse = LoginKey::of("nurse");
        let (known_device, stranger) = (store.for_sign_in(true), store.for_sign_in(false));
        let known = tokio::time::timeout(Duration::from_secs(5), known_device.credentials(&nurse));
        assert!(known.await.unwrap().unwrap().is_some());
        let waits = tokio::time::timeout(Duration::from_millis(300), stranger.credentials(&nurse));
        assert!(waits.await.is_err(), "a stranger waits for the shared pool");
    })
    .await;
}

#[tokio::test]
async fn a_known_device_that_keeps_failing_is_treated_as_unknown() {
    on_each_backend(false, |app| async move {
        app.staff("nurse", "nurse-password", &[], &[]).await;
        let mut client = app.client.clone();
        let device = app
            .login("nurse", "nurse-password")
            .await
            .unwrap()
            .device_token;
        // A stolen device cookie buys five guesses, then counts as a new device,
        // whose guesses the login's limit stops.
        for _ in 0..10 {
            let _ = client
                .login(login_from_device("nurse", "guess", &device))
                .await;
        }
        let limited = client
            .login(login_from_device("nurse", "guess", &device))
            .await;
        assert_status(limited, Code::ResourceExhausted, TOO_MANY);
    })
    .await;
}

#[tokio::test]
async fn parallel_guesses_with_a_stolen_device_cookie_buy_no_more_than_the_limits() {
    on_each_backend(false, |app| async move {
        app.staff("nurse", "nurse-password", &[], &[]).await;
        app.staff("doctor", "doctor-password", &[], &[]).await;
        let stolen = app.login("nurse", "nurse-password").await.unwrap();
        let own = app.login("nurse", "nurse-password").await.unwrap();
        assert_ne!(stolen.device_token, own.device_token);
        let doctors = app.login("doctor", "doctor-password").await.unwrap();
        let attacker = "198.51.100.1";
        let guess = || {
            let mut client = app.client.clone();
            let request = from_address(
                login_from_device("nurse", "guess", &stolen.device_token),
                attacker,
            );
            async move { client.login(request).await }
        };
        let checked = |answer: &Result<_, tonic::Status>| {
            answer
                .as_ref()
                .is_err_and(|status| status.code() == Code::Unauthenticated)
        };

        // Twenty guesses at once with one stolen device cookie: each is checked
        // before any has failed.
        let storm = futures_util::future::join_all((0..20).map(|_| guess())).await;
        let mut guessed = storm.iter().filter(|answer| checked(answer)).count();
        for answer in &storm {
            assert!(
                checked(answer) || answer.as_ref().is_err_and(|s| s.message() == TOO_MANY),
                "{answer:?}"
            );
        }
        // On PostgreSQL two attempts recorded at the same moment on the known
        // devices' two connections do not see each other: one more at most.
        let slack = match app.backend {
            Backend::Sqlite => 0,
            Backend::Postgres => 1,
        };
        let device_failures: i64 = sqlx::query_scalar(
            "SELECT COUNT(*) FROM sign_in_attempts WHERE device_key IS NOT NULL AND failed = 1",
        )
        .fetch_one(&app.database().await)
        .await
        .unwrap();
        assert!(
            device_failures <= DEVICE_MAX_FAILURES + slack,
            "{device_failures} guesses counted against the device"
        );
        // Then the device counts as unknown, and the limit of the login at the
        // attacker's address stops it too.
        let refused = loop {
            let answer = guess().await;
            if !checked(&answer) {
                break answer;
            }
            guessed += 1;
            assert!(guessed <= 30, "the guesses never stop");
        };
        assert_status(refused, Code::ResourceExhausted, TOO_MANY);
        let budget = DEVICE_MAX_FAILURES + PAIR_MAX_FAILURES + slack;
        assert!(
            i64::try_from(guessed).unwrap() <= budget,
            "{guessed} guesses checked, the limits allow {budget}"
        );
        let right = app
            .client
            .clone()
            .login(from_address(
                login_from_device("nurse", "nurse-password", &stolen.device_token),
                attacker,
            ))
            .await;
        assert_status(right, Code::ResourceExhausted, TOO_MANY);

        // The nurse's own browser and her colleague's sign in at once.
        let mut client = app.client.clone();
        for (login, password, device) in [
            ("nurse", "nurse-password", &own.device_token),
            ("doctor", "doctor-password", &doctors.device_token),
        ] {
            let signed_in = client
                .login(login_from_device(login, password, device))
                .await;
            assert!(signed_in.is_ok(), "{login}: {signed_in:?}");
        }
    })
    .await;
}

#[tokio::test]
async fn a_persons_own_browser_signing_in_many_times_at_once_always_gets_in() {
    on_each_backend(false, |app| async move {
        app.staff("nurse", "nurse-password", &[], &[]).await;
        let device = app
            .login("nurse", "nurse-password")
            .await
            .unwrap()
            .device_token;
        // More at once than the device's limit: those beyond it wait for the
        // earlier ones, which were right.
        let sign_ins = (0..3 * DEVICE_MAX_FAILURES).map(|_| {
            let mut client = app.client.clone();
            let request = login_from_device("nurse", "nurse-password", &device);
            async move { client.login(request).await }
        });
        for result in futures_util::future::join_all(sign_ins).await {
            assert!(result.is_ok(), "{result:?}");
        }
    })
    .await;
}

#[tokio::test]
async fn five_typos_at_one_address_do_not_stop_a_colleagues_sign_in() {
    on_each_backend(false, |app| async move {
        app.staff("nurse", "nurse-password", &[], &[]).await;
        app.staff("doctor", "doctor-password", &[], &[]).await;
        let mut client = app.client.clone();
        let hospital = "192.0.2.50";
        for _ in 0..5 {
            let typo = client
                .login(from_address(
                    login_request("nurse", "nurse-pasword"),
                    hospital,
                ))
                .await;
            assert_status(typo, Code::Unauthenticated, BAD_CREDENTIALS);
        }
        for i in 0..10 {
            let typo = client
                .login(from_address(
                    login_request(&format!("nures{i}"), "x"),
                    hospital,
                ))
                .await;
            assert_status(typo, Code::Unauthenticated, BAD_CREDENTIALS);
        }
        let doctor = client
            .login(from_address(
                login_request("doctor", "doctor-password"),
                hospital,
            ))
            .await;
        assert!(doctor.is_ok(), "{doctor:?}");
    })
    .await;
}

#[tokio::test]
async fn a_shift_signing_in_at_once_behind_one_address_all_get_in() {
    on_each_backend(false, |app| async move {
        let shift: Vec<String> = (0..8).map(|i| format!("nurse{i}")).collect();
        for login in &shift {
            app.staff(login, "nurse-password", &[], &[]).await;
        }
        let sign_ins = shift.iter().map(|login| {
            let mut client = app.client.clone();
            let request = from_address(login_request(login, "nurse-password"), "192.0.2.50");
            async move { client.login(request).await }
        });
        for result in futures_util::future::join_all(sign_ins).await {
            assert!(result.is_ok(), "{result:?}");
        }
    })
    .await;
}

#[tokio::test]
async fn an_address_over_its_limit_is_slowed_but_a_right_password_gets_in() {
    on_each_backend(false, |app| async move {
        app.staff("doctor", "doctor-password", &[], &[]).await;
        let address = "203.0.113.9";
        let database = app.database().await;
        let now = portal_kit::db::now_millis();
        for i in 0..=portal_auth::domain::rate_limit::ADDRESS_MAX_FAILURES {
            sqlx::query(
                "INSERT INTO sign_in_attempts (at, address_key, login_key, failed) VALUES ($1, $2, $3, 1)",
            )
            .bind(now)
            .bind(address)
            .bind(format!("guess{i}"))
            .execute(&database)
            .await
            .unwrap();
        }
        let started = std::time::Instant::now();
        let doctor = app
            .client
            .clone()
            .login(from_address(
                login_request("doctor", "doctor-password"),
                address,
            ))
            .await;
        assert!(doctor.is_ok(), "{doctor:?}");
        assert!(
            started.elapsed() >= portal_auth::domain::rate_limit::ADDRESS_SLOWDOWN,
            "slowed"
        );
    })
    .await;
}

#[tokio::test]
async fn two_replicas_on_one_database_enforce_one_limit() {
    on_each_backend(false, |app| async move {
        app.staff("nurse", "nurse-password", &[], &[]).await;
        let replica = app.replica(TrustedProxies::loopback()).await;
        let mut first = app.client.clone();
        let mut second = replica.client.clone();
        for _ in 0..3 {
            let _ = first.login(login_request("nurse", "guess")).await;
        }
        for _ in 0..2 {
            let _ = second.login(login_request("nurse", "guess")).await;
        }
        let limited = second.login(login_request("nurse", "guess")).await;
        assert_status(limited, Code::ResourceExhausted, TOO_MANY);
        let limited = first.login(login_request("nurse", "nurse-password")).await;
        assert_status(limited, Code::ResourceExhausted, TOO_MANY);
    })
    .await;
}

/// The address each failed attempt was counted under, oldest first.
async fn counted_addresses(app: &TestApp) -> Vec<String> {
    sqlx::query_scalar("SELECT address_key FROM sign_in_attempts ORDER BY id")
        .fetch_all(&app.database().await)
        .await
        .unwrap()
}

#[tokio::test]
async fn a_forwarded_address_counts_only_from_a_trusted_caller_and_ipv6_by_its_slash_64() {
    on_each_backend(false, |app| async move {
        // The test calls from loopback, which this service trusts (the gateway of `all`).
        let mut trusting = app.client.clone();
        for address in ["2001:db8:1:2::1", "2001:db8:1:2:ffff::9", "198.51.100.7"] {
            let _ = trusting
                .login(from_address(login_request("nobody", "x"), address))
                .await;
        }
        // A service that trusts no proxy counts the caller itself, whatever it claims.
        let replica = app.replica(TrustedProxies::none()).await;
        let _ = replica
            .client
            .clone()
            .login(from_address(login_request("nobody", "x"), "198.51.100.8"))
            .await;
        assert_eq!(
            counted_addresses(&app).await,
            [
                "2001:db8:1:2::/64",
                "2001:db8:1:2::/64",
                "198.51.100.7",
                "127.0.0.1"
            ]
        );
    })
    .await;
}

#[tokio::test]
async fn a_huge_login_is_refused_without_being_kept() {
    on_each_backend(false, |app| async move {
        let huge = "x".repeat(1_900_000);
        for _ in 0..3 {
            let result = app.login(&huge, "guess").await;
            assert_status(result, Code::Unauthenticated, BAD_CREDENTIALS);
        }
        let longest: Option<i64> =
            sqlx::query_scalar("SELECT MAX(LENGTH(login_key)) FROM sign_in_attempts")
                .fetch_one(&app.database().await)
                .await
                .unwrap();
        assert_eq!(longest, Some(0), "nothing of the login is stored");
    })
    .await;
}
