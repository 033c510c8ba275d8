/// Tide's version, as `tide --version` and plugins (`tide.version`) see it.
public let tideVersion = "0.1.0"
