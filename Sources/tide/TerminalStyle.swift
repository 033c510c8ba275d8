import TideReports

extension TextStyle {
    /// Styles for standard output, if it is a terminal and `NO_COLOR` is unset or empty.
    static var standardOutput: TextStyle { TextStyle(enabled: Terminal.stdoutIsTTY && !noColor) }

    /// Styles for standard error, on the same terms.
    static var standardError: TextStyle { TextStyle(enabled: Terminal.stderrIsTTY && !noColor) }
}
