//! A browser's `User-Agent` as a person recognises their own device in the
//! list of their sessions: «Chrome, Windows», «Safari, iPhone».

/// The longest user agent kept: real ones are a few hundred characters, and a
/// client may send anything.
pub const MAX_USER_AGENT_CHARS: usize = 512;

/// The text worth keeping of a `User-Agent` header: without the token a gRPC
/// hop on the way appended (« tonic/0.14.2»), trimmed and cut to
/// [`MAX_USER_AGENT_CHARS`]; none when blank.
pub fn kept(user_agent: &str) -> Option<String> {
    let own = user_agent
        .rfind(" tonic/")
        .map_or(user_agent, |hop| &user_agent[..hop]);
    let trimmed = own.trim();
    (!trimmed.is_empty()).then(|| trimmed.chars().take(MAX_USER_AGENT_CHARS).collect())
}

/// «Browser, system» as far as `user_agent` says; what it does not say is left
/// out, and an agent naming neither (a script, another system) is shown as it
/// came, cut short.
pub fn describe(user_agent: &str) -> String {
    let browser = browser(user_agent);
    let system = system(user_agent);
    match (browser, system) {
        (Some(browser), Some(system)) => format!("{browser}, {system}"),
        (Some(one), None) | (None, Some(one)) => one.to_owned(),
        (None, None) => user_agent.chars().take(60).collect(),
    }
}

/// The browser, tested in an order where each name's own token comes before
/// the tokens it also sends (Edge and Yandex send «Chrome», Chrome «Safari»).
fn browser(user_agent: &str) -> Option<&'static str> {
    const BROWSERS: [(&str, &str); 8] = [
        ("YaBrowser/", "Яндекс Браузер"),
        ("Edg/", "Edge"),
        ("OPR/", "Opera"),
        ("Firefox/", "Firefox"),
        ("Chromium/", "Chromium"),
        ("HeadlessChrome/", "Chrome"),
        ("Chrome/", "Chrome"),
        ("Safari/", "Safari"),
    ];
    BROWSERS
        .into_iter()
        .find(|(token, _)| user_agent.contains(token))
        .map(|(_, name)| name)
}

/// The system, phones first (an Android agent also says «Linux», an iPhone's
/// «like Mac OS X»).
fn system(user_agent: &str) -> Option<&'static str> {
    const SYSTEMS: [(&str, &str); 7] = [
        ("Android", "Android"),
        ("iPhone", "iPhone"),
        ("iPad", "iPad"),
        ("Windows", "Windows"),
        ("Mac OS X", "macOS"),
        ("CrOS", "ChromeOS"),
        ("Linux", "Linux"),
    ];
    SYSTEMS
        .into_iter()
        .find(|(token, _)| user_agent.contains(token))
        .map(|(_, name)| name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_person_recognises_their_browser_and_system() {
        let cases = [
            (
                "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
                "Chrome, Windows",
            ),
            (
                "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0",
                "Edge, Windows",
            ),
            (
                "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 YaBrowser/24.12.0.0 Safari/537.36",
                "Яндекс Браузер, Windows",
            ),
            (
                "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1",
                "Safari, iPhone",
            ),
            (
                "Mozilla/5.0 (Linux; Android 14; SM-A546B) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36",
                "Chrome, Android",
            ),
            (
                "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0",
                "Firefox, Linux",
            ),
            ("python-requests/2.32.3", "python-requests/2.32.3"),
        ];
        for (agent, shown) in cases {
            assert_eq!(describe(agent), shown, "{agent}");
        }
    }

    #[test]
    fn only_a_bounded_non_blank_agent_is_kept() {
        assert_eq!(kept("  "), None);
        assert_eq!(kept(" curl/8 ").as_deref(), Some("curl/8"));
        assert_eq!(
            kept("Mozilla/5.0 (X11; Linux x86_64) Chrome/131.0 tonic/0.14.2").as_deref(),
            Some("Mozilla/5.0 (X11; Linux x86_64) Chrome/131.0")
        );
        assert_eq!(
            kept(&"я".repeat(2000)).map(|agent| agent.chars().count()),
            Some(MAX_USER_AGENT_CHARS)
        );
    }
}
