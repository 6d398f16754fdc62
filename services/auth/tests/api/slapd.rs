//! A real OpenLDAP server (Debian's `slapd`) for the directory sign-in tests:
//! started on a free port in a temporary directory from a generated
//! `slapd.conf`, serving LDAPS with a certificate of a CA made for the test
//! (`openssl`), and a tiny schema of Active Directory's `userAccountControl`
//! and `sAMAccountName`, so the disabled-account rule meets a real attribute.
//!
//! Without `slapd` the tests say why and pass; under `PORTAL_REQUIRE_E2E=1`
//! (CI) they fail instead.

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use portal_auth::directory::{DirectoryArgs, DirectorySettings};

pub const SLAPD: &str = "/usr/sbin/slapd";
pub const SLAPADD: &str = "/usr/sbin/slapadd";
pub const BASE: &str = "dc=hospital,dc=local";
pub const PEOPLE: &str = "ou=people,dc=hospital,dc=local";
pub const SERVICE_DN: &str = "cn=portal,ou=services,dc=hospital,dc=local";
pub const SERVICE_PASSWORD: &str = "bind-secret-2026";
pub const EDUCATORS: &str = "cn=portal-educators,ou=groups,dc=hospital,dc=local";
pub const ADMINS: &str = "cn=portal-admins,ou=groups,dc=hospital,dc=local";

/// Active Directory's attributes, under their AD OIDs, and a class to hold them.
const AD_SCHEMA: &str = "\
attributetype ( 1.2.840.113556.1.4.8 NAME 'userAccountControl' EQUALITY integerMatch SYNTAX 1.3.6.1.4.1.1466.115.121.1.27 SINGLE-VALUE )
attributetype ( 1.2.840.113556.1.4.221 NAME 'sAMAccountName' EQUALITY caseIgnoreMatch SYNTAX 1.3.6.1.4.1.1466.115.121.1.15 SINGLE-VALUE )
objectclass ( 1.3.6.1.4.1.4203.666.11.39.1 NAME 'portalTestAdUser' SUP top AUXILIARY MAY ( userAccountControl $ sAMAccountName ) )
";

/// A directory person of the tests.
pub struct Person<'a> {
    pub login: &'a str,
    pub password: &'a str,
    pub employee_number: Option<&'a str>,
    /// AD's flags: 512 a normal account, 514 a disabled one.
    pub account_control: u32,
}

pub fn person<'a>(login: &'a str, password: &'a str, number: Option<&'a str>) -> Person<'a> {
    Person {
        login,
        password,
        employee_number: number,
        account_control: 512,
    }
}

/// A running slapd; stopped when dropped.
pub struct Slapd {
    dir: tempfile::TempDir,
    port: u16,
    child: Option<Child>,
}

impl Slapd {
    /// A slapd holding `people` and the groups (`members` of the educators'
    /// group and the admins'); `None` when slapd is not installed and the run
    /// does not require it.
    pub fn start(people: &[Person<'_>], educators: &[&str], admins: &[&str]) -> Option<Slapd> {
        if !Path::new(SLAPD).exists() {
            if std::env::var("PORTAL_REQUIRE_E2E").as_deref() == Ok("1") {
                panic!(
                    "PORTAL_REQUIRE_E2E=1 but {SLAPD} is missing (apt-get install slapd ldap-utils)"
                );
            }
            use std::io::Write;
            let _ = writeln!(
                std::io::stderr(),
                "SKIPPED: {SLAPD} is not installed (apt-get install slapd ldap-utils)"
            );
            return None;
        }
        let dir = tempfile::tempdir().expect("a temporary directory");
        make_certificates(dir.path());
        std::fs::write(dir.path().join("ad.schema"), AD_SCHEMA).expect("schema");
        std::fs::create_dir(dir.path().join("db")).expect("db dir");
        std::fs::write(dir.path().join("slapd.conf"), config(dir.path())).expect("slapd.conf");
        std::fs::write(
            dir.path().join("data.ldif"),
            ldif(people, educators, admins),
        )
        .expect("ldif");
        run(Command::new(SLAPADD)
            .arg("-f")
            .arg(dir.path().join("slapd.conf"))
            .arg("-l")
            .arg(dir.path().join("data.ldif")));
        let port = free_port();
        let mut slapd = Slapd {
            dir,
            port,
            child: None,
        };
        slapd.resume();
        Some(slapd)
    }

    pub fn url(&self) -> String {
        format!("ldaps://127.0.0.1:{}", self.port)
    }

    pub fn ca_file(&self) -> PathBuf {
        self.dir.path().join("ca.pem")
    }

    /// The portal's settings for this directory, with the groups mapped to
    /// EducationManagement and UserManagement.
    pub fn args(&self) -> DirectoryArgs {
        DirectoryArgs {
            ldap_url: Some(self.url()),
            ldap_bind_dn: Some(SERVICE_DN.into()),
            ldap_bind_password: Some(SERVICE_PASSWORD.into()),
            ldap_user_base: Some(PEOPLE.into()),
            ldap_user_filter: portal_auth::directory::config::DEFAULT_USER_FILTER.into(),
            ldap_ca_file: Some(self.ca_file()),
            ldap_match: portal_auth::directory::config::DEFAULT_MATCH.into(),
            ldap_group_rights: Some(format!(
                "{EDUCATORS}=EducationManagement;{ADMINS}=UserManagement"
            )),
            ..DirectoryArgs::default()
        }
    }

    pub fn settings(&self) -> DirectorySettings {
        self.args().settings().expect("valid").expect("on")
    }

    /// Stops the server (as a crash or an outage would).
    pub fn stop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// Starts the server again on its port, and waits until it answers.
    pub fn resume(&mut self) {
        let child = Command::new(SLAPD)
            .arg("-f")
            .arg(self.dir.path().join("slapd.conf"))
            .arg("-h")
            .arg(format!("ldaps://127.0.0.1:{}/", self.port))
            // In the foreground, so the child is the server, without debugging.
            .args(["-d", "0"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start slapd");
        self.child = Some(child);
        let deadline = Instant::now() + Duration::from_secs(15);
        while std::net::TcpStream::connect(("127.0.0.1", self.port)).is_err() {
            assert!(
                Instant::now() < deadline,
                "slapd did not listen within 15 s"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for Slapd {
    fn drop(&mut self) {
        self.stop();
    }
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .expect("a free port")
        .port()
}

fn run(command: &mut Command) {
    let output = command.output().expect("run a tool");
    assert!(
        output.status.success(),
        "{command:?} failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// A CA, and a server certificate it signed for 127.0.0.1 and localhost.
fn make_certificates(dir: &Path) {
    let openssl = |args: &[&str]| run(Command::new("openssl").current_dir(dir).args(args));
    let ec = "-newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes";
    let ca = format!("req -x509 {ec} -keyout ca.key -out ca.pem -days 2");
    let ca: Vec<&str> = ca.split(' ').collect();
    openssl(&[&ca[..], &["-subj", "/CN=Portal test directory CA"]].concat());
    let request = format!("req {ec} -keyout server.key -out server.csr -subj /CN=localhost");
    openssl(&request.split(' ').collect::<Vec<_>>());
    std::fs::write(
        dir.join("server.ext"),
        "subjectAltName=DNS:localhost,IP:127.0.0.1\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n",
    )
    .expect("extensions");
    let sign = "x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial \
                -out server.pem -days 2 -extfile server.ext";
    openssl(&sign.split_whitespace().collect::<Vec<_>>());
}

fn config(dir: &Path) -> String {
    let dir = dir.display();
    format!(
        "include /etc/ldap/schema/core.schema
include /etc/ldap/schema/cosine.schema
include /etc/ldap/schema/inetorgperson.schema
include {dir}/ad.schema
pidfile {dir}/slapd.pid
modulepath /usr/lib/ldap
moduleload back_mdb
TLSCACertificateFile {dir}/ca.pem
TLSCertificateFile {dir}/server.pem
TLSCertificateKeyFile {dir}/server.key
database mdb
maxsize 104857600
suffix \"{BASE}\"
rootdn \"cn=admin,{BASE}\"
directory {dir}/db
access to attrs=userPassword by anonymous auth by * none
access to * by users read by * none
"
    )
}

/// The entries: the service account, `people`, and the two groups.
fn ldif(people: &[Person<'_>], educators: &[&str], admins: &[&str]) -> String {
    let mut text = format!(
        "dn: {BASE}\nobjectClass: dcObject\nobjectClass: organization\ndc: hospital\no: Hospital\n\n\
         dn: ou=people,{BASE}\nobjectClass: organizationalUnit\nou: people\n\n\
         dn: ou=services,{BASE}\nobjectClass: organizationalUnit\nou: services\n\n\
         dn: ou=groups,{BASE}\nobjectClass: organizationalUnit\nou: groups\n\n\
         dn: {SERVICE_DN}\nobjectClass: person\ncn: portal\nsn: portal\nuserPassword: {SERVICE_PASSWORD}\n\n"
    );
    for person in people {
        let login = person.login;
        text.push_str(&format!(
            "dn: uid={login},{PEOPLE}\nobjectClass: inetOrgPerson\nobjectClass: portalTestAdUser\n\
             uid: {login}\nsAMAccountName: {login}\ncn: {login}\nsn: Тестова\ngivenName: Анна\n\
             userAccountControl: {}\nuserPassword: {}\n",
            person.account_control, person.password
        ));
        if let Some(number) = person.employee_number {
            text.push_str(&format!("employeeNumber: {number}\n"));
        }
        text.push('\n');
    }
    for (group, members) in [(EDUCATORS, educators), (ADMINS, admins)] {
        let cn = group
            .trim_start_matches("cn=")
            .split(',')
            .next()
            .unwrap_or_default();
        text.push_str(&format!(
            "dn: {group}\nobjectClass: groupOfNames\ncn: {cn}\n"
        ));
        // groupOfNames needs a member: the service account stands in.
        text.push_str(&format!("member: {SERVICE_DN}\n"));
        for member in members.iter() {
            text.push_str(&format!("member: uid={member},{PEOPLE}\n"));
        }
        text.push('\n');
    }
    text
}
