//! The vocabulary of access: a person's rights and a system's scopes, as
//! tokens, the database and the web client write them.

use serde::{Deserialize, Serialize};

/// The three rights of DESIGN §6; each also counts as an admin-type right.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Right {
    UserManagement,
    EducationManagement,
    EquipmentEditing,
}

impl Right {
    pub const ALL: [Right; 3] = [
        Right::UserManagement,
        Right::EducationManagement,
        Right::EquipmentEditing,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Right::UserManagement => "UserManagement",
            Right::EducationManagement => "EducationManagement",
            Right::EquipmentEditing => "EquipmentEditing",
        }
    }

    pub fn parse(name: &str) -> Option<Right> {
        Right::ALL.into_iter().find(|right| right.as_str() == name)
    }
}

/// What a service account may be allowed to do (issue 21): the OAuth scopes a
/// system asks for and an admin grants, written as in its tokens.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Scope {
    StaffRead,
    StaffWrite,
    TrainingRead,
    TrainingAssign,
    EquipmentRead,
    EquipmentWrite,
}

impl Scope {
    pub const ALL: [Scope; 6] = [
        Scope::StaffRead,
        Scope::StaffWrite,
        Scope::TrainingRead,
        Scope::TrainingAssign,
        Scope::EquipmentRead,
        Scope::EquipmentWrite,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Scope::StaffRead => "staff.read",
            Scope::StaffWrite => "staff.write",
            Scope::TrainingRead => "training.read",
            Scope::TrainingAssign => "training.assign",
            Scope::EquipmentRead => "equipment.read",
            Scope::EquipmentWrite => "equipment.write",
        }
    }

    pub fn parse(name: &str) -> Option<Scope> {
        Scope::ALL.into_iter().find(|scope| scope.as_str() == name)
    }
}
