// swift-tools-version:6.0
import PackageDescription

let nio: [Target.Dependency] = [
    .product(name: "NIOCore", package: "swift-nio"),
    .product(name: "NIOPosix", package: "swift-nio"),
    .product(name: "NIOHTTP1", package: "swift-nio"),
    .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
]
let logging: Target.Dependency = .product(name: "Logging", package: "swift-log")
/// Some of SwiftNIO's modules, by name: a target declares the ones its files import
/// (ModuleGraphTests checks both ways).
func swiftNIO(_ modules: String...) -> [Target.Dependency] {
    modules.map { .product(name: $0, package: "swift-nio") }
}

let package = Package(
    name: "hlschaos",
    // macOS 15: the Synchronization module (Mutex, Atomic). Linux is where it is built and tested;
    // libc calls outside Foundation are guarded for Darwin so that a Mac build compiles.
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "hlschaos", targets: ["hlschaos"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-nio", from: "2.80.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        // Control plane (issue 12): HTTP API, live events, Prometheus metrics.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.0.0"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.0.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.0.0"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.9.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.0.0"),
        // TLS towards devices (HTTPS listener, intercepted CONNECT) and HTTP/2 (issue 22).
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.0"),
        .package(url: "https://github.com/apple/swift-nio-http2", from: "1.46.0"),
        // The local certificate authority (issue 22): X.509 certificates, P-256 keys, DER.
        .package(url: "https://github.com/apple/swift-certificates", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        .package(url: "https://github.com/apple/swift-asn1", from: "1.3.0"),
    ],
    targets: [
        // libcurl, found through pkg-config (Debian: libcurl4-openssl-dev).
        .systemLibrary(
            name: "CCurl",
            pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"])]
        ),
        // Typed wrappers around libcurl's variadic C API and the multi-handle loop.
        .target(name: "CurlShim", dependencies: ["CCurl"]),
        // JSON where Foundation's coders fall short: a parser that keeps key order, duplicate keys
        // and the spelling of numbers and says where a syntax error is; a writer in a fixed key
        // order; the one string escaper; paths for messages. Pure: the standard library only.
        .target(name: "JSON"),
        // Playlist model, parser, writer, URI resolution. Pure: Foundation and JSON, no I/O.
        .target(name: "HLS", dependencies: ["JSON"]),
        // How requests name what they want: the proxy's URLs (sessions, presets, resource tags,
        // origins, the redirect hop), resource kinds, Range headers, and what a path, a content type
        // or a body says a resource is, and what a URI in a playlist names (`ResourceTag.Kind(place)`,
        // hence HLS). Pure: the one copy of the grammar every module reads.
        .target(name: "Addressing", dependencies: ["HLS"]),
        // Text put into XML or HTML (JUnit, run pages, the setup page, the Apple profile): the one
        // escaper. Pure: the standard library only.
        .target(name: "Markup"),
        // CMCD (CTA-5004, -A): a request's player data, parsed, typed, checked, stripped. Pure: the standard library only.
        .target(name: "CMCD"),
        // What a player run produced (`PlayerReport`) and the names of the built-in players: the
        // player vocabulary that scenarios, verdicts and drivers share. Pure: values only.
        .target(name: "PlayerReports"),
        // Reading the house's documents (rule files, link specs): the spellings of durations, rates
        // and percentages, and a JSON tree reader whose problems name the file, the JSON path and
        // what would fix it; "did you mean". Pure: the standard library and JSON.
        .target(name: "SpecReading", dependencies: ["JSON"]),
        // Rule schema, validation, matching, session clock, fault plans. Pure.
        // Header syntax is swift-http-types' (values only, no I/O).
        .target(
            name: "Chaos",
            dependencies: ["HLS", "JSON", "Addressing", "CMCD", "PlayerReports", "Link", "SpecReading", .product(name: "HTTPTypes", package: "swift-http-types")]
        ),
        // One record per request and what is read off records: the reaction report. Pure.
        .target(name: "Records", dependencies: ["JSON", "Addressing", "CMCD"]),
        // A session's link (the device's downlink): capacity over time, the shared bottleneck
        // scheduler, latency, bad-state stalls, outages, link specs and profiles. Pure: no clock, no I/O.
        .target(name: "Link", dependencies: ["JSON", "SpecReading"]),
        // Async streaming HTTP client over libcurl.
        .target(
            name: "Upstream",
            dependencies: [
                "CurlShim", .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"), .product(name: "HTTPTypes", package: "swift-http-types"),
            ]
        ),
        // Embedded demo origin: bundled VOD media and a simulated live window.
        .target(
            name: "DemoOrigin",
            dependencies: ["HLS", "Addressing", .product(name: "NIOSSL", package: "swift-nio-ssl")] + swiftNIO("NIOCore", "NIOHTTP1", "NIOPosix"),
            resources: [.copy("Media")]
        ),
        // Data files compiled into the binary, so that a copied binary has them: the EmbedFiles
        // plugin runs EmbedGen over a target's files that are not Swift sources (`EmbeddedFiles`).
        .executableTarget(name: "EmbedGen", path: "Sources/EmbedGen"),
        .plugin(name: "EmbedFiles", capability: .buildTool(), dependencies: ["EmbedGen"], path: "Sources/EmbedFiles"),
        // The presets of rules/ (`BuiltInPresets.files`; Sources/Presets/rules is a symbolic link to rules/).
        .target(name: "Presets", exclude: ["rules/README.md", "rules/schema.json"], plugins: ["EmbedFiles"]),
        // The record bundle: its format, written as it goes (`BundleWriter`), read back and checked
        // (`RecordingBundle`), summarised, redacted, archived. What the proxy needs to record.
        // The SHA-256 names of recorded bodies come from swift-crypto.
        .target(name: "BundleFormat", dependencies: ["HLS", "Addressing", "Records", .product(name: "Crypto", package: "swift-crypto")]),
        // `hlschaos record`: follows a stream from its master (live reloads by RFC 8216) into a bundle.
        .target(name: "Recorder", dependencies: ["BundleFormat", "HLS", "Addressing", "Upstream", "JSON"] + swiftNIO("NIOCore")),
        // The replay origin: serves a bundle as the origin served it, in time, looped or sped up.
        .target(name: "Replay", dependencies: ["BundleFormat", "HLS", "Addressing", "Upstream", logging] + nio),
        // HAR 1.2 both ways: records exported as a HAR; a HAR imported as a bundle and a scenario.
        .target(name: "HAR", dependencies: ["BundleFormat", "Records", "Chaos", "HLS", "Addressing", "JSON", "CMCD"]),
        // The rules in force (`RuleBook`): rule files, the built-in presets and a preset folder, read
        // and re-read when they change; the engine of each preset combination a URL asks for.
        .target(name: "RuleLoading", dependencies: ["Chaos", "Presets", logging, .product(name: "NIOConcurrencyHelpers", package: "swift-nio")]),
        // Data plane: sessions, request classification, fault plans on the wire.
        .target(
            name: "Proxy",
            dependencies: [
                "HLS", "Addressing", "CMCD", "Chaos", "Link", "Records", "Upstream", "RuleLoading", "BundleFormat", "CertificateAuthority", logging,
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOTLS", package: "swift-nio"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
            ] + nio
        ),
        // The configuration file (`ConfigFile`): every key read and checked into one value with a part
        // per owner (`AppSettings`: the data plane's, the rules', the control API's, logging, data folder).
        .target(name: "AppConfiguration", dependencies: ["Proxy", "RuleLoading", "Addressing", "Chaos", "JSON", "Link", "Upstream"]),
        // Control plane: the control API on its own listener (Hummingbird), events, HAR, report, metrics.
        .target(
            name: "Control",
            dependencies: [
                "Proxy", "Addressing", "CMCD", "Chaos", "Link", "Records", "HAR", "BundleFormat", "Presets", "JSON", logging,
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ],
            // The dashboard's files (Dashboard/) and the OpenAPI document (openapi.json) are compiled in.
            plugins: ["EmbedFiles"]
        ),
        // The local certificate authority: a root made on first use and kept in a data folder, leaf
        // certificates for host names and addresses on demand, the root as an Apple profile, and the
        // device setup page that hands the root out (the proxy serves it on its own port).
        .target(
            name: "CertificateAuthority",
            dependencies: [
                "Markup",
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ]
        ),
        // Real players: launching, watching and reading them (process groups, watchdog, drivers).
        .target(name: "Players", dependencies: ["PlayerReports"]),
        // A scenario's expectations checked against request records, the reaction report, a
        // player's report and the session's link history (`hlschaos run`); the adaptation figures. Pure: no clock, no I/O.
        .target(name: "Verdicts", dependencies: ["Chaos", "Records", "CMCD", "PlayerReports", "Link"]),
        // Scripted chaos runs: the proxy and demo origin in-process, players on fresh sessions,
        // verdicts, JUnit/JSON/HTML, the conformance matrix.
        .target(
            name: "Runs",
            dependencies: [
                "Proxy", "RuleLoading", "Addressing", "Chaos", "Records", "HAR", "Players", "PlayerReports", "Verdicts", "DemoOrigin", "Upstream",
                "CertificateAuthority", "Markup", .product(name: "NIOSSL", package: "swift-nio-ssl"), logging,
            ]
        ),
        .executableTarget(
            name: "hlschaos",
            dependencies: [
                "HLS", "Addressing", "Chaos", "Upstream", "CurlShim", "Proxy", "RuleLoading", "AppConfiguration", "DemoOrigin", "Control",
                "Players", "Runs", "BundleFormat", "Recorder", "Replay", "HAR", "Records", "CertificateAuthority", "JSON", "Link", logging,
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ] + swiftNIO("NIOCore", "NIOPosix")
        ),
        // Loopback origin, temporary folders, fixtures and helpers shared by the test targets.
        .target(name: "TestSupport", dependencies: nio, path: "Tests/TestSupport"),
        .testTarget(name: "TestSupportTests", dependencies: ["TestSupport"] + swiftNIO("NIOConcurrencyHelpers")),
        .testTarget(name: "JSONTests", dependencies: ["JSON"]),
        .testTarget(name: "HLSTests", dependencies: ["HLS", "TestSupport"], resources: [.copy("Corpus")]),
        .testTarget(name: "AddressingTests", dependencies: ["Addressing", "HLS", "TestSupport"]),
        .testTarget(name: "CMCDTests", dependencies: ["CMCD"]),
        .testTarget(name: "CertificateAuthorityTests", dependencies: ["CertificateAuthority", "TestSupport"]),
        // Package.swift against the sources: every import declared, every dependency imported, the
        // pure modules free of I/O.
        .testTarget(name: "ModuleGraphTests"),
        .testTarget(name: "ChaosTests", dependencies: ["Chaos", "CMCD", "HLS", "JSON", "Addressing", "Link", "SpecReading", .product(name: "HTTPTypes", package: "swift-http-types")]),
        .testTarget(name: "LinkTests", dependencies: ["Link", "JSON"]),
        .testTarget(name: "SpecReadingTests", dependencies: ["SpecReading"]),
        .testTarget(name: "RecordsTests", dependencies: ["Records", "Addressing", "CMCD", "TestSupport"]),
        .testTarget(name: "HARTests", dependencies: ["HAR", "BundleFormat", "Records", "Chaos", "Addressing", "TestSupport"]),
        .testTarget(
            name: "RecordingTests",
            dependencies: [
                "BundleFormat", "Recorder", "Replay", "Records", "HLS", "Addressing", "TestSupport", "Proxy", "RuleLoading", "Upstream",
                "Players", "DemoOrigin",
            ] + swiftNIO("NIOPosix")
        ),
        // HAR import end to end: HARs exported by the proxy and saved by Chromium (hls.js), imported,
        // replayed on a fresh session of the real proxy in front of the demo origin.
        .testTarget(
            name: "HARImportTests",
            dependencies: [
                "BundleFormat", "HAR", "Records", "Addressing", "Chaos", "Proxy", "RuleLoading", "Control", "DemoOrigin", "Upstream", "Players",
                "TestSupport",
            ]
        ),
        .testTarget(name: "PlayersTests", dependencies: ["Players", "PlayerReports", "Chaos", "TestSupport", "DemoOrigin"]),
        .testTarget(name: "RunsTests", dependencies: ["Runs", "Markup", "Verdicts", "Players", "PlayerReports", "Records", "Chaos", "Proxy", "RuleLoading", "TestSupport", logging]),
        .testTarget(name: "VerdictsTests", dependencies: ["Verdicts", "Chaos", "Records", "Addressing", "PlayerReports", "Link"]),
        .testTarget(name: "UpstreamTests", dependencies: ["Upstream", "TestSupport"] + swiftNIO("NIOCore")),
        .testTarget(
            name: "DemoOriginTests",
            dependencies: ["DemoOrigin", "HLS", "JSON", "TestSupport"] + swiftNIO("NIOConcurrencyHelpers", "NIOCore", "NIOPosix")
        ),
        // Runs the built `hlschaos` binary: exit codes, messages, signals, reloads.
        .testTarget(name: "CLITests", dependencies: ["TestSupport", "BundleFormat"]),
        .testTarget(name: "RuleBookTests", dependencies: ["RuleLoading", "Presets", "Chaos", "TestSupport", logging]),
        .testTarget(name: "AppConfigurationTests", dependencies: ["AppConfiguration", "Proxy", "RuleLoading"]),
        .testTarget(
            name: "ProxyTests",
            dependencies: [
                "Proxy", "RuleLoading", "Addressing", "Link", "DemoOrigin", "Upstream", "HLS", "Chaos", "Records", "JSON", "BundleFormat", "Players", "PlayerReports",
                "TestSupport", "CertificateAuthority", .product(name: "NIOSSL", package: "swift-nio-ssl"), logging,
            ] + swiftNIO("NIOCore", "NIOHTTP1", "NIOPosix", "NIOEmbedded")
        ),
        .testTarget(
            name: "ControlTests",
            dependencies: [
                "Control", "JSON", "Proxy", "RuleLoading", "Addressing", "CertificateAuthority", "DemoOrigin", "Upstream", "Chaos", "Records",
                "BundleFormat", "TestSupport",
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)

// Every Swift module: a nonisolated async function runs on its caller's executor (SE-0461), so the
// steps of a request stay on its connection's event loop without a switch of executor at every call
// and return (`swift_task_switch` fell from 1.1 to 0.45 µs per proxied request in the profile). All
// modules or none: with Swift 6.3.1, a debug build in which a module without it called an async
// function of one with it crashed on a bad pointer.
for target in package.targets where [.regular, .executable, .test].contains(target.type) && target.name != "CurlShim" {  // CurlShim is C
    target.swiftSettings = (target.swiftSettings ?? []) + [.enableUpcomingFeature("NonisolatedNonsendingByDefault")]
}
