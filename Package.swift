// swift-tools-version: 6.1
import Foundation
import PackageDescription

/// The shipped plugins, embedded in the binary by the ShippedPlugins target. (SwiftPM caches the
/// evaluated manifest by its text: after adding a file to Plugins/, build once with
/// `swift build --manifest-cache none`.)
let pluginFiles = ((try? FileManager.default.contentsOfDirectory(atPath: Context.packageDirectory + "/Plugins")) ?? [])
    .filter { $0.hasSuffix(".lua") }.sorted()
let shippedPlugins = pluginFiles.filter { !$0.hasSuffix("_test.lua") }
/// Their test files (`tide plugins test Plugins/`), beside them and not embedded.
let shippedPluginTests = pluginFiles.filter { $0.hasSuffix("_test.lua") }

let package = Package(
    name: "Tide",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "tide", targets: ["tide"]),
        .library(name: "TideCore", targets: ["TideCore"]),
        .library(name: "TideLlama", targets: ["TideLlama"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/modelcontextprotocol/swift-sdk", from: "0.12.1"),
    ],
    targets: [
        .systemLibrary(
            name: "CLlama",
            pkgConfig: "llama",
            providers: [.apt(["libllama-dev"]), .brew(["llama.cpp"])]
        ),
        .systemLibrary(name: "CLua", pkgConfig: "lua5.4", providers: [.apt(["liblua5.4-dev"]), .brew(["lua"])]),
        .target(name: "CLuaShim", dependencies: ["CLua"]),
        .systemLibrary(name: "CEditLine", pkgConfig: "libedit", providers: [.apt(["libedit-dev"]), .brew(["libedit"])]),
        .target(name: "CEditLineShim", dependencies: ["CEditLine"]),
        .target(name: "TideCore"),
        .target(name: "TideFiles"),
        .target(name: "ShippedPlugins", exclude: shippedPluginTests.map { "Lua/" + $0 }, resources: shippedPlugins.map { .embedInCode("Lua/" + $0) }),
        .target(name: "TideLua", dependencies: ["TideCore", "TideFiles", "TideFormat", "ShippedPlugins", "CLua", "CLuaShim"]),
        .target(name: "TideRegex"),
        .target(name: "TideFormat", dependencies: ["TideCore", "TideFiles", "TideRegex"]),
        .target(name: "TideScript", dependencies: ["TideCore", "TideFiles", "TideFormat", "TideRegex"]),
        .target(name: "TideProvider", dependencies: ["TideCore", "TideLlama", "TideModels", "TideRemote"]),
        .target(name: "TideRunner", dependencies: ["TideCore", "TideFiles", "TideFormat", "TideRegex", "TideScript", "TideLua", "TideMCP", "TideModels", "TideProvider", "TideRemote", .product(name: "Crypto", package: "swift-crypto")]),
        .target(name: "TideJournal", dependencies: ["TideFiles", "TideLog", "TideRunner", .product(name: "GRDB", package: "GRDB.swift")]),
        .target(name: "TidePluginHarness", dependencies: ["TideCore", "TideFormat", "TideLua", "CLuaShim"],
                resources: [.embedInCode("harness.lua")]),
        .target(name: "TideCache", dependencies: ["TideCore", "TideFiles", "TideLog", .product(name: "Crypto", package: "swift-crypto"), .product(name: "GRDB", package: "GRDB.swift")]),
        .target(name: "TideReports", dependencies: ["TideCore", "TideOpenAI", "TidePluginHarness", "TideRunner", "TideScript"]),
        .target(name: "TideLlama", dependencies: ["TideCore", "TideFiles", "TideFormat", "CLlama"]),
        .target(
            name: "TideModels",
            dependencies: [
                "TideCore", "TideFiles",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
            ]
        ),
        .target(name: "TideChat",
                dependencies: ["TideCore", "TideFormat", "TideLua", "TideLog", "TideModels", "TideScript", "TideProvider", "TideRunner", "CEditLineShim"]),
        .target(name: "TideOpenAI", dependencies: ["TideCore", "TideFormat"]),
        .target(name: "TideAnthropic", dependencies: ["TideCore", "TideFormat", "TideOpenAI"]),
        .target(name: "TideRemote", dependencies: [
            "TideCore", "TideFormat", "TideOpenAI", "TideAnthropic", .product(name: "AsyncHTTPClient", package: "async-http-client"),
            .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
            .product(name: "NIOHTTP1", package: "swift-nio"),
        ]),
        .target(name: "TideServe", dependencies: [
            "TideCore", "TideFormat", "TideOpenAI", "TideAnthropic",
            .product(name: "Hummingbird", package: "hummingbird"), .product(name: "HummingbirdCore", package: "hummingbird"),
            .product(name: "NIOCore", package: "swift-nio"), .product(name: "Logging", package: "swift-log"), .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            .product(name: "Prometheus", package: "swift-prometheus"), .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
        ]),
        .target(name: "TideMCP", dependencies: [
            "TideCore", "TideFormat", .product(name: "MCP", package: "swift-sdk"), .product(name: "Logging", package: "swift-log"),
        ]),
        .target(name: "TideLog", dependencies: ["TideCore", "TideFiles", "TideFormat", "TideScript", .product(name: "GRDB", package: "GRDB.swift")]),
        .target(name: "TideBench", dependencies: ["TideCore", "TideFormat", "TideLlama", "TideLog", "TideProvider", "TideRemote", "TideRunner", "TideScript", "CLlama"]),
        // The fuzz targets (scripts/fuzz.sh); built plainly, they replay inputs.
        .executableTarget(name: "TideFuzz", dependencies: ["TideAnthropic", "TideCore", "TideFormat", "TideLua", "TideOpenAI", "TideRegex", "TideScript"]),
        .executableTarget(
            name: "tide",
            dependencies: [
                "TideCore", "TideFiles", "TideFormat", "TideLlama", "TideLua", "TideModels", "TideRemote", "TideProvider", "TideBench", "TideScript", "TideRunner", "TideReports", "TideJournal", "TideCache", "TidePluginHarness",
                "TideChat", "TideServe", "TideLog", "TideOpenAI", "TideMCP",
                .product(name: "ArgumentParser", package: "swift-argument-parser"), .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(name: "TideTestSupport", dependencies: ["TideCore", "TideLlama", "TideModels", "TideProvider", "TidePluginHarness"], path: "Tests/TideTestSupport", exclude: ["Fixtures"]),
        .testTarget(name: "TideCoreTests", dependencies: ["TideCore", "TideTestSupport"]),
        .testTarget(name: "TidePluginHarnessTests", dependencies: ["TidePluginHarness", "TideLua"]),
        .testTarget(name: "TideFilesTests", dependencies: ["TideFiles"]),
        .testTarget(name: "TideOpenAITests", dependencies: ["TideOpenAI", "TideCore", "TideFormat", "TideTestSupport"]),
        .testTarget(name: "TideAnthropicTests", dependencies: ["TideAnthropic", "TideOpenAI", "TideCore", "TideFormat"]),
        .testTarget(name: "TideLuaTests", dependencies: ["TideCore", "TideFormat", "TideLua", "ShippedPlugins", "TideLlama", "TideModels", "TideTestSupport", "CLua"]),
        .testTarget(name: "TideLlamaTests", dependencies: ["TideCore", "TideFormat", "TideLlama", "TideModels", "TideTestSupport"]),
        .testTarget(name: "TideRegexTests", dependencies: ["TideRegex", "TideTestSupport"]),
        .testTarget(name: "TideFormatTests", dependencies: ["TideFormat", "TideCore", "TideRegex"], exclude: ["Fixtures"]),
        .testTarget(name: "TideScriptTests", dependencies: ["TideCore", "TideScript", "TideTestSupport"]),
        .testTarget(name: "TideRunnerTests", dependencies: ["TideRunner", "TideCore", "TideScript", "TideLua", "TideMCP", "TideModels", "TideProvider", "TideTestSupport", "TideLlama"]),
        .testTarget(name: "TideModelsTests", dependencies: ["TideCore", "TideModels", "TideTestSupport", .product(name: "Crypto", package: "swift-crypto")],
                    exclude: ["Fixtures"]),
        .testTarget(name: "TideChatTests",
                    dependencies: ["TideChat", "TideCore", "TideLua", "TideModels", "TideProvider", "TideRunner", "TideTestSupport"]),
        .testTarget(name: "TideServeTests", dependencies: [
            "TideServe", "TideLua", "TideProvider", "TideTestSupport",
            .product(name: "Hummingbird", package: "hummingbird"), .product(name: "HummingbirdTesting", package: "hummingbird"),
        ]),
        .testTarget(name: "TideRemoteTests",
                    dependencies: ["TideRemote", "TideCore", "TideLua", "TideTestSupport"]),
        .testTarget(name: "TideLogTests", dependencies: [
            "TideLog", "TideCore", "TideFormat", "TideScript", "TideTestSupport", .product(name: "GRDB", package: "GRDB.swift"),
        ]),
        .testTarget(name: "TideMCPTests", dependencies: ["TideMCP", "TideCore", "TideTestSupport"]),
        .testTarget(name: "TideJournalTests", dependencies: ["TideJournal", "TideRunner", "TideCore", "TideScript", .product(name: "GRDB", package: "GRDB.swift")]),
        .testTarget(name: "TideCacheTests", dependencies: ["TideCache", "TideCore", .product(name: "GRDB", package: "GRDB.swift")]),
        .testTarget(name: "TideCLITests", dependencies: ["TideTestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)
