//! Reference data (countries, manufacturers, types, common documents): listed,
//! unique as people read them, and every text field guarded.

use crate::helpers::*;
use portal_proto::wiki::v1 as pb;
use tonic::Code;

#[tokio::test]
async fn reference_data_is_listed_and_its_names_are_unique() {
    on_each_backend(|app| async move {
        let mut client = app.client.clone();
        let token = app.editor_token();
        let country = client
            .create_country(authed(
                pb::CreateCountryRequest {
                    name: "Германия".into(),
                },
                &token,
            ))
            .await
            .unwrap()
            .into_inner()
            .country
            .unwrap();
        assert_status(
            client
                .create_country(authed(
                    pb::CreateCountryRequest {
                        name: "Германия".into(),
                    },
                    &token,
                ))
                .await,
            Code::FailedPrecondition,
            "«Германия» уже есть в справочнике",
        );
        let maker = client
            .create_manufacturer(authed(
                pb::CreateManufacturerRequest {
                    name: "Dräger".into(),
                    country_id: country.id,
                },
                &token,
            ))
            .await
            .unwrap()
            .into_inner()
            .manufacturer
            .unwrap();
        assert_eq!(maker.country_id, country.id);
        assert_status(
            client
                .create_manufacturer(authed(
                    pb::CreateManufacturerRequest {
                        name: "Unknown".into(),
                        country_id: country.id + 100,
                    },
                    &token,
                ))
                .await,
            Code::InvalidArgument,
            "Страна не найдена",
        );
        let mut request = model_request("Savina 300", "");
        request.manufacturer_id = maker.id;
        let model = client
            .create_environment_model(authed(request, &token))
            .await
            .unwrap()
            .into_inner()
            .environment_model
            .unwrap();
        assert_eq!(model.manufacturer_id, maker.id);
        let learner = app.learner_token();
        let manufacturers = client
            .list_manufacturers(authed(pb::ListManufacturersRequest {}, &learner))
            .await
            .unwrap()
            .into_inner()
            .manufacturers;
        assert_eq!(manufacturers, [maker]);
        let refused = client
            .create_common_document(authed(
                pb::CreateCommonDocumentRequest {
                    title: "Приказ".into(),
                    description: String::new(),
                    url: "javascript:alert(1)".into(),
                },
                &token,
            ))
            .await;
        assert_eq!(code(&refused), Code::InvalidArgument);
    })
    .await;
}

#[tokio::test]
async fn reference_names_are_unique_as_people_read_them_and_checked_before_storing() {
    on_each_backend(|app| async move {
        let mut client = app.client.clone();
        let token = app.editor_token();
        let country = |name: &str| authed(pb::CreateCountryRequest { name: name.into() }, &token);
        let kind = |name: &str| {
            authed(
                pb::CreateEnvironmentTypeRequest { name: name.into() },
                &token,
            )
        };
        let maker = |name: &str| {
            authed(
                pb::CreateManufacturerRequest {
                    name: name.into(),
                    country_id: 0,
                },
                &token,
            )
        };
        client.create_country(country("Россия")).await.unwrap();
        assert_status(
            client.create_country(country(" РОССИЯ ")).await,
            Code::FailedPrecondition,
            "«РОССИЯ» уже есть в справочнике",
        );
        client
            .create_environment_type(kind("Аппарат ИВЛ"))
            .await
            .unwrap();
        assert_status(
            client.create_environment_type(kind("аппарат   ивл")).await,
            Code::FailedPrecondition,
            "«аппарат ивл» уже есть в справочнике",
        );
        client.create_manufacturer(maker("Дрёгер")).await.unwrap();
        assert_status(
            client.create_manufacturer(maker("дрегер")).await,
            Code::FailedPrecondition,
            "«дрегер» уже есть в справочнике",
        );
        assert_status(
            client.create_manufacturer(maker("  ")).await,
            Code::InvalidArgument,
            "Введите название производителя",
        );
        assert_status(
            client.create_country(country(&"я".repeat(301))).await,
            Code::InvalidArgument,
            "Название страны не должно превышать 300 символов",
        );
        let document = |title: &str| {
            authed(
                pb::CreateCommonDocumentRequest {
                    title: title.into(),
                    description: String::new(),
                    url: "https://hospital.example/order.pdf".into(),
                },
                &token,
            )
        };
        client
            .create_common_document(document("Приказ № 12 об учёте"))
            .await
            .unwrap();
        assert_status(
            client
                .create_common_document(document(" приказ  № 12 ОБ УЧЕТЕ"))
                .await,
            Code::FailedPrecondition,
            "«приказ № 12 ОБ УЧЕТЕ» уже есть в справочнике",
        );
        let learner = app.learner_token();
        let documents = client
            .list_common_documents(authed(pb::ListCommonDocumentsRequest {}, &learner))
            .await
            .unwrap()
            .into_inner()
            .common_documents;
        assert_eq!(documents.len(), 1, "the lookalike was not stored");
        let countries = client
            .list_countries(authed(pb::ListCountriesRequest {}, &learner))
            .await
            .unwrap()
            .into_inner()
            .countries;
        assert_eq!(
            countries
                .iter()
                .map(|c| c.name.as_str())
                .collect::<Vec<_>>(),
            ["Россия"]
        );
    })
    .await;
}

#[tokio::test]
async fn every_text_field_refuses_hidden_characters_with_its_own_message() {
    on_each_backend(|app| async move {
        let mut client = app.client.clone();
        let token = app.editor_token();
        let model = app.create_model("Монитор", "").await;
        let unit = app
            .create_unit(model.id, OWN_DEPARTMENT, "ИН-1")
            .await
            .unwrap();
        let journal = app.create_journal(model.id, "Журнал").await;
        // Reads backwards on screen from the override on.
        let bidi = |text: &str| format!("{text}\u{202E}лоб");
        let refused = |result: Result<(), tonic::Status>, field: &str| {
            let message = format!("{field} невидимых и управляющих символов");
            assert_status(result, Code::InvalidArgument, &message);
        };
        let models = [
            ("Название модели не должно содержать", 0),
            ("Название бренда не должно содержать", 1),
            ("Описание модели не должно содержать", 2),
        ];
        for (field, which) in models {
            let mut request = model_request("Монитор 2", "");
            match which {
                0 => request.name = bidi("Монитор"),
                1 => request.brand_name = bidi("Mindray"),
                _ => request.description = "Строка\n\u{1b}[2Jстрока".into(),
            }
            let result = client
                .create_environment_model(authed(request, &token))
                .await;
            refused(result.map(drop), field);
        }
        for (field, serial, inventory) in [
            (
                "Серийный номер не должен содержать",
                bidi("SN"),
                "ИН-2".to_owned(),
            ),
            (
                "Инвентарный номер не должен содержать",
                "SN".to_owned(),
                "ИН\u{200B}-1".to_owned(),
            ),
        ] {
            let result = client
                .create_environment(authed(
                    pb::CreateEnvironmentRequest {
                        environment_model_id: model.id,
                        department_deployment: OWN_DEPARTMENT,
                        serial_number: serial,
                        inventory_number: inventory,
                    },
                    &token,
                ))
                .await;
            refused(result.map(drop), field);
        }
        let entry = |performed_by: &str, description: &str, result: &str| {
            authed(
                pb::CreateMaintenanceEntryRequest {
                    environment_id: unit.id,
                    date: day(0),
                    kind: pb::MaintenanceKind::Inspection as i32,
                    performed_by: performed_by.into(),
                    description: description.into(),
                    result: result.into(),
                    next_due: String::new(),
                },
                &token,
            )
        };
        for (field, request) in [
            (
                "Исполнитель не должен содержать",
                entry(&bidi("Инженер"), "Осмотр", ""),
            ),
            (
                "Описание работ не должно содержать",
                entry("Инженер", "Осмотр\u{7}", ""),
            ),
            (
                "Результат не должен содержать",
                entry("Инженер", "Осмотр", &bidi("Исправен")),
            ),
        ] {
            refused(
                client.create_maintenance_entry(request).await.map(drop),
                field,
            );
        }
        let lines = client
            .create_maintenance_entry(entry("Инженер", "1.\tОсмотр\r\n2. Замена", "Исправен"))
            .await
            .expect("line breaks and tabs are text")
            .into_inner()
            .entry
            .unwrap();
        assert_eq!(lines.description, "1.\tОсмотр\n2. Замена");
        let result = client
            .create_journal(authed(
                pb::CreateJournalRequest {
                    environment_model_id: model.id,
                    name: bidi("Журнал"),
                },
                &token,
            ))
            .await;
        refused(result.map(drop), "Название журнала не должно содержать");
        let result = client
            .create_journal_entry(authed(
                pb::CreateJournalEntryRequest {
                    journal_id: journal.id,
                    date: day(0),
                    text: bidi("Обработано"),
                },
                &token,
            ))
            .await;
        refused(result.map(drop), "Запись не должна содержать");
        let result = client
            .create_country(authed(
                pb::CreateCountryRequest {
                    name: bidi("Россия"),
                },
                &token,
            ))
            .await;
        refused(result.map(drop), "Название страны не должно содержать");
        let result = client
            .create_manufacturer(authed(
                pb::CreateManufacturerRequest {
                    name: bidi("Dräger"),
                    country_id: 0,
                },
                &token,
            ))
            .await;
        refused(
            result.map(drop),
            "Название производителя не должно содержать",
        );
        let result = client
            .create_environment_type(authed(
                pb::CreateEnvironmentTypeRequest {
                    name: bidi("ИВЛ")
                },
                &token,
            ))
            .await;
        refused(
            result.map(drop),
            "Название типа оборудования не должно содержать",
        );
        for (field, title, description) in [
            (
                "Название документа не должно содержать",
                bidi("Приказ"),
                String::new(),
            ),
            (
                "Описание документа не должно содержать",
                "Приказ".to_owned(),
                bidi("О порядке"),
            ),
        ] {
            let result = client
                .create_common_document(authed(
                    pb::CreateCommonDocumentRequest {
                        title,
                        description,
                        url: "https://hospital.example/order.pdf".into(),
                    },
                    &token,
                ))
                .await;
            refused(result.map(drop), field);
        }
    })
    .await;
}
