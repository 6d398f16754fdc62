//! Equipment models (модели оборудования): name, brand, description and the
//! short instruction (spec §5: name, brand name and description required).

use portal_kit::ServiceError;
use portal_kit::text::{Field, Shape};

use super::instruction::Sanitizer;
use super::text::{MAX_NAME_CHARS, MAX_TEXT_CHARS};

pub const MSG_MODEL_NOT_FOUND: &str = "Модель оборудования не найдена";
pub const MSG_INSTRUCTION_NOT_FOUND: &str = "Инструкция не найдена";

const NAME: Field = Field {
    required: "Введите название модели оборудования",
    too_long: "Название модели не должно превышать 300 символов",
    hidden: "Название модели не должно содержать невидимых и управляющих символов",
    max_chars: MAX_NAME_CHARS,
    shape: Shape::Line,
};
const BRAND: Field = Field {
    required: "Введите название бренда",
    too_long: "Название бренда не должно превышать 300 символов",
    hidden: "Название бренда не должно содержать невидимых и управляющих символов",
    max_chars: MAX_NAME_CHARS,
    shape: Shape::Line,
};
const DESCRIPTION: Field = Field {
    required: "Введите описание модели оборудования",
    too_long: "Описание модели не должно превышать 5000 символов",
    hidden: "Описание модели не должно содержать невидимых и управляющих символов",
    max_chars: MAX_TEXT_CHARS,
    shape: Shape::Lines,
};

/// What creating or updating a model writes.
#[derive(Clone, Debug)]
pub struct ModelDraft {
    pub name: String,
    pub brand_name: String,
    pub description: String,
    /// Sanitised HTML.
    pub short_instruction: String,
    /// Whether they exist is the store's question.
    pub manufacturer_id: Option<i64>,
    pub environment_type_id: Option<i64>,
}

/// A model's fields as a request carries them.
pub struct ModelInput<'a> {
    pub name: &'a str,
    pub brand_name: &'a str,
    pub description: &'a str,
    pub short_instruction: &'a str,
    pub manufacturer_id: i64,
    pub environment_type_id: i64,
}

impl ModelDraft {
    pub fn parse(input: ModelInput<'_>, sanitizer: &Sanitizer) -> Result<ModelDraft, ServiceError> {
        Ok(ModelDraft {
            name: NAME.required(input.name)?,
            brand_name: BRAND.required(input.brand_name)?,
            description: DESCRIPTION.required(input.description)?,
            short_instruction: sanitizer.clean(input.short_instruction)?,
            manufacturer_id: (input.manufacturer_id > 0).then_some(input.manufacturer_id),
            environment_type_id: (input.environment_type_id > 0)
                .then_some(input.environment_type_id),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(name: &str, brand: &str, description: &str) -> Result<ModelDraft, ServiceError> {
        ModelDraft::parse(
            ModelInput {
                name,
                brand_name: brand,
                description,
                short_instruction: "<script>x</script><p>Текст</p>",
                manufacturer_id: 0,
                environment_type_id: 3,
            },
            &Sanitizer::new("http://127.0.0.1:8080"),
        )
    }

    #[test]
    fn a_model_needs_name_brand_and_description() {
        let message = |r: Result<ModelDraft, ServiceError>| r.unwrap_err().to_string();
        assert_eq!(message(parse(" ", "Mindray", "Монитор")), NAME.required);
        assert_eq!(message(parse("BeneView T5", "", "Монитор")), BRAND.required);
        assert_eq!(
            message(parse("BeneView T5", "Mindray", "")),
            DESCRIPTION.required
        );
    }

    #[test]
    fn a_draft_is_trimmed_and_its_instruction_cleaned() {
        let draft = parse(" BeneView T5 ", "Mindray", "Монитор").unwrap();
        assert_eq!(draft.name, "BeneView T5");
        assert_eq!(draft.short_instruction, "<p>Текст</p>");
        assert_eq!(draft.manufacturer_id, None);
        assert_eq!(draft.environment_type_id, Some(3));
    }
}
