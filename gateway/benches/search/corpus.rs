//! The generated corpus: words, articles, courses, models and units, made the same
//! for every run from a seed.

use super::*;
use portal_kit::search::{self};

/// Each kind of query: what it stands for, and what is typed.
pub(crate) const QUERIES: [(&str, &str); 4] = [
    ("a common word", "пациента"),
    ("a rare word (another form)", "гемодиафильтрации"),
    ("a plural of singular forms", "дефибрилляторы"),
    ("an inventory number's start", "ИН-0001"),
];

/// Everyday words of a ward's texts, in the forms the texts use them.
pub(crate) const VOCABULARY: &[&str] = &[
    "пациента",
    "перед",
    "после",
    "проверьте",
    "аппарат",
    "датчик",
    "обработка",
    "рук",
    "медицинской",
    "сестры",
    "отделения",
    "врача",
    "включите",
    "питания",
    "сети",
    "кабель",
    "экран",
    "тревоги",
    "сигнал",
    "давления",
    "манжету",
    "плечо",
    "электроды",
    "кожи",
    "салфеткой",
    "дезинфекции",
    "раствором",
    "антисептика",
    "перчатки",
    "маску",
    "халат",
    "инфекции",
    "профилактика",
    "журнал",
    "запись",
    "смены",
    "дежурной",
    "палаты",
    "реанимации",
    "кислорода",
    "подачи",
    "маски",
    "трубки",
    "фильтр",
    "замените",
    "ежедневно",
    "еженедельно",
    "калибровка",
    "инженер",
    "заявку",
    "неисправности",
    "отключите",
    "батарею",
    "зарядите",
    "индикатор",
    "зелёный",
    "красный",
    "жёлтый",
    "кнопку",
    "нажмите",
    "удерживайте",
    "секунды",
    "минуты",
    "часа",
    "дозу",
    "препарата",
    "введения",
    "инфузии",
    "скорость",
    "шприц",
    "насоса",
    "линию",
    "воздуха",
    "пузырьков",
    "температуры",
    "тела",
    "измерения",
    "пульса",
    "сатурации",
    "дыхания",
    "частоты",
    "ритма",
    "сердца",
    "электрокардиограммы",
    "отведения",
    "бумаги",
    "печати",
    "результатов",
    "истории",
    "болезни",
    "выписки",
    "поступления",
    "осмотра",
    "обхода",
    "назначения",
    "лечащего",
    "согласно",
    "инструкции",
    "производителя",
    "правилам",
];
pub(crate) const MODEL_NAMES: &[&str] = &[
    "Монитор пациента",
    "Аппарат ИВЛ",
    "Инфузомат",
    "Шприцевой насос",
    "Электрокардиограф",
    "Аспиратор",
    "Пульсоксиметр",
    "Концентратор кислорода",
];
pub(crate) const BRANDS: &[&str] = &["Mindray", "Dräger", "Philips", "Schiller", "B. Braun"];

/// `PORTAL_BENCH_SEARCH_ITEMS`, else `ITEMS`.
pub(crate) fn items() -> usize {
    std::env::var("PORTAL_BENCH_SEARCH_ITEMS").map_or(ITEMS, |count| {
        count
            .parse()
            .expect("PORTAL_BENCH_SEARCH_ITEMS: a number of items")
    })
}

/// What is indexed.
#[derive(Clone, Copy)]
pub(crate) struct Size {
    pub(crate) articles: usize,
    pub(crate) models: usize,
    pub(crate) units: usize,
    pub(crate) courses: usize,
}

impl Size {
    pub(crate) fn of(items: usize) -> Size {
        let articles = items / 2;
        Size {
            articles,
            models: items - articles,
            units: (items / 10).max(1),
            courses: articles.div_ceil(ARTICLES_PER_COURSE),
        }
    }
}

/// Words drawn the same way on every run (splitmix64), the first words of
/// [`VOCABULARY`] far more often than the last.
pub(crate) struct Words(u64);

impl Words {
    pub(crate) fn of(kind: u64, id: usize) -> Words {
        Words(kind << 40 ^ id as u64)
    }

    pub(crate) fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    pub(crate) fn word(&mut self) -> &'static str {
        let u = (self.next() >> 11) as f64 / (1u64 << 53) as f64;
        VOCABULARY[((u * u * u) * VOCABULARY.len() as f64) as usize]
    }

    pub(crate) fn sentence(&mut self, words: usize) -> String {
        (0..words)
            .map(|_| self.word())
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// Three paragraphs of rich text, as the editor saves them; the rare
    /// word in one item of [`RARE_EVERY`].
    pub(crate) fn rich_text(&mut self, id: usize) -> String {
        let rare = if id % RARE_EVERY == 7 { RARE } else { "" };
        format!(
            "<p>{}</p><p>{} {rare}</p><p>{}</p>",
            self.sentence(40),
            self.sentence(40),
            self.sentence(40)
        )
    }
}

pub(crate) struct Article {
    pub(crate) id: usize,
    pub(crate) title: String,
    pub(crate) description: String,
    pub(crate) content: String,
}

impl Article {
    pub(crate) fn new(id: usize) -> Article {
        let mut words = Words::of(1, id);
        let title = if id.is_multiple_of(DEFIBRILLATOR_EVERY) {
            format!("Работа с дефибриллятором, памятка {id}")
        } else {
            format!("{} {}, памятка {id}", words.word(), words.word())
        };
        Article {
            id,
            title,
            description: words.sentence(8),
            content: words.rich_text(id),
        }
    }

    /// Its entry, as education's `store::search::index` makes it.
    pub(crate) fn body(&self) -> String {
        format!("{} {}", self.description, search::plain_text(&self.content))
    }
}

pub(crate) struct Course {
    pub(crate) id: usize,
    pub(crate) title: String,
    pub(crate) description: String,
}

impl Course {
    pub(crate) fn new(id: usize) -> Course {
        let mut words = Words::of(2, id);
        Course {
            id,
            title: format!("Курс {id}: {}", words.sentence(3)),
            description: words.sentence(8),
        }
    }

    pub(crate) fn body(&self) -> String {
        format!("{} {}", self.description, search::plain_text(""))
    }
}

pub(crate) struct Model {
    pub(crate) id: usize,
    pub(crate) name: String,
    pub(crate) brand: &'static str,
    pub(crate) description: String,
    pub(crate) instruction: String,
}

impl Model {
    pub(crate) fn new(id: usize) -> Model {
        let mut words = Words::of(3, id);
        let name = if id.is_multiple_of(DEFIBRILLATOR_EVERY) {
            format!("Дефибриллятор Д-{id}")
        } else {
            format!("{} М-{id}", MODEL_NAMES[id % MODEL_NAMES.len()])
        };
        Model {
            id,
            name,
            brand: BRANDS[id % BRANDS.len()],
            description: words.sentence(10),
            instruction: words.rich_text(id),
        }
    }

    /// Its entry, as the wiki's `store::search::index_model` makes it.
    pub(crate) fn body(&self) -> String {
        format!(
            "{} {} {}",
            self.brand,
            self.description,
            search::plain_text(&self.instruction)
        )
    }
}

pub(crate) struct Unit {
    pub(crate) id: usize,
    pub(crate) model: Model,
    pub(crate) department: i64,
    pub(crate) serial: String,
    pub(crate) inventory: String,
}

impl Unit {
    pub(crate) fn new(id: usize, size: Size) -> Unit {
        Unit {
            id,
            model: Model::new(1 + (id - 1) % size.models),
            department: 1 + (id % DEPARTMENTS) as i64,
            serial: format!("SN{id:07}"),
            inventory: format!("ИН-{id:06}"),
        }
    }

    /// Its entry, as the wiki's `store::search::index_unit` makes it.
    pub(crate) fn body(&self) -> String {
        format!("{} {}", self.model.name, self.serial)
    }
}
