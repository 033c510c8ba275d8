// The scripted backend lives with the plugin harness, which plugin tests run on; Tide's own fast
// tests use it through this module.
@_exported import TidePluginHarness
