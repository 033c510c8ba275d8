import Testing

/// Every suite that launches `tide`. They run one test at a time, for the same reason as the
/// in-process model tests: each launch decodes with every core.
@Suite(.serialized) enum CommandLineTests {}
