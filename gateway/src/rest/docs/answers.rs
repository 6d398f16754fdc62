//! What each operation answers in the envelope's `data`, typed: a contract's
//! message is a component named after it (`auth.v1.Department`), read from the
//! descriptor set as its serde writes it; a gateway type is its utoipa schema
//! (see [`typed`]); lists and "maybe" wrap them. The handler's own return type
//! picks it ([`Answers`]), so the document cannot claim another.

use std::future::Future;

use utoipa::openapi::schema::{ArrayBuilder, ObjectBuilder, Schema, Type};
use utoipa::openapi::{Ref, RefOr};

use super::Named;
use super::messages::{message_component, nullable};
use crate::rest::ApiResult;

/// The schema of an answer's `data`, its named parts added to `named`.
pub type AnswerFn = fn(&mut Named) -> RefOr<Schema>;

/// A type that can be an answer's `data`.
pub trait Answer {
    fn data(named: &mut Named) -> RefOr<Schema>;
}

/// The `data` schema of `T`, as an [`AnswerFn`].
pub fn answer_of<T: Answer>(named: &mut Named) -> RefOr<Schema> {
    T::data(named)
}

/// A handler whose future answers [`ApiResult<T>`]: its `data` is `T`'s.
pub trait Answers<Args> {
    fn answer(named: &mut Named) -> RefOr<Schema>;
}

macro_rules! answers {
    ($($arg:ident),*) => {
        impl<F, Fut, T, $($arg,)*> Answers<($($arg,)*)> for F
        where
            F: FnOnce($($arg,)*) -> Fut,
            Fut: Future<Output = ApiResult<T>>,
            T: Answer,
        {
            fn answer(named: &mut Named) -> RefOr<Schema> {
                T::data(named)
            }
        }
    };
}

answers!();
answers!(A1);
answers!(A1, A2);
answers!(A1, A2, A3);
answers!(A1, A2, A3, A4);
answers!(A1, A2, A3, A4, A5);
answers!(A1, A2, A3, A4, A5, A6);

impl Answer for () {
    fn data(_: &mut Named) -> RefOr<Schema> {
        Schema::from(ObjectBuilder::new().schema_type(Type::Null).build()).into()
    }
}

impl<T: Answer> Answer for Vec<T> {
    fn data(named: &mut Named) -> RefOr<Schema> {
        Schema::from(ArrayBuilder::new().items(T::data(named)).build()).into()
    }
}

impl<T: Answer> Answer for Option<T> {
    fn data(named: &mut Named) -> RefOr<Schema> {
        nullable(T::data(named))
    }
}

macro_rules! plain {
    ($($ty:ty),*) => {
        $(
            impl Answer for $ty {
                fn data(_: &mut Named) -> RefOr<Schema> {
                    <$ty as utoipa::PartialSchema>::schema()
                }
            }
        )*
    };
}

plain!(String, bool, i32, i64);

/// A message's component, referred to from a gateway type's field
/// (`#[schema(schema_with = docs::message_ref::<pb::Revision>)]`); the
/// document adds the component itself ([`super::openapi`]).
pub fn message_ref<T: Answer>() -> RefOr<Schema> {
    T::data(&mut Vec::new())
}

/// As [`message_ref`], or `null`.
pub fn maybe_message<T: Answer>() -> RefOr<Schema> {
    nullable(message_ref::<T>())
}

macro_rules! messages {
    ($(($message:ty, $name:literal)),* $(,)?) => {
        $(
            impl Answer for $message {
                fn data(named: &mut Named) -> RefOr<Schema> {
                    message_component($name, named)
                }
            }
        )*
    };
}

portal_proto::for_each_message!(messages);

/// A gateway type answered as it is: its utoipa schema as a component of its
/// name, referred to.
pub fn schema_answer<T: utoipa::ToSchema>(named: &mut Named) -> RefOr<Schema> {
    let name = T::name().into_owned();
    if !named.iter().any(|(known, _)| *known == name) {
        named.push((name.clone(), T::schema()));
        T::schemas(named);
    }
    Ref::from_schema_name(name).into()
}

/// Makes gateway types (deriving `ToSchema`) answers: `docs::typed!(UserJson, …)`.
macro_rules! typed {
    ($($ty:ty),* $(,)?) => {
        $(
            impl $crate::rest::docs::Answer for $ty {
                fn data(
                    named: &mut $crate::rest::docs::Named,
                ) -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
                    $crate::rest::docs::schema_answer::<$ty>(named)
                }
            }
        )*
    };
}

pub(crate) use typed;
