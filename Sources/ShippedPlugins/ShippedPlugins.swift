/// The plugins of the repository's `Plugins/` folder, compiled into the binary, so that `tide`
/// finds them from any directory and once installed (`make install` copies no plugin files).
///
/// `Package.swift` embeds every `.lua` file of the folder (through the `Lua` link beside this
/// file); a plugin added there is listed here too, and a test checks that the two agree.
public enum ShippedPlugins {
    /// Each plugin's name (its file name without `.lua`) and Lua source, sorted by name.
    public static let all: [(name: String, source: String)] = [
        ("ban-phrases", PackageResources.ban_phrases_lua),
        ("ban-regex", PackageResources.ban_regex_lua),
        ("calculator", PackageResources.calculator_lua),
        ("censor-words", PackageResources.censor_words_lua),
        ("clock", PackageResources.clock_lua),
        ("json-mode", PackageResources.json_mode_lua),
        ("persona", PackageResources.persona_lua),
        ("prefer-words", PackageResources.prefer_words_lua),
        ("redact-emails", PackageResources.redact_emails_lua),
        ("stop-after-sentences", PackageResources.stop_after_sentences_lua),
        ("stop-on-pattern", PackageResources.stop_on_pattern_lua),
        ("stop-on-repetition", PackageResources.stop_on_repetition_lua),
        ("strip-markdown", PackageResources.strip_markdown_lua),
        ("tool-allow", PackageResources.tool_allow_lua),
        ("units", PackageResources.units_lua),
        ("word-budget", PackageResources.word_budget_lua),
    ].map { ($0.0, String(decoding: $0.1, as: UTF8.self)) }

    /// The source of the shipped plugin `name`, if there is one.
    public static func source(of name: String) -> String? {
        all.first { $0.name == name }?.source
    }
}
