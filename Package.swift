// swift-tools-version: 6.1
import PackageDescription

/// OpenStoreKit: Apple's in-app purchase system, implemented openly in Swift and running on Linux.
///
/// Dependencies point one way: configuration and formats at the bottom, the engine above them,
/// storage, server and client on top, the `storekit` command last.
let package = Package(
    name: "OpenStoreKit",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "OpenStoreKit", targets: ["OpenStoreKit"]),
        .library(name: "OpenStoreKitTest", targets: ["OpenStoreKitTest"]),
        .library(name: "StoreKitConfiguration", targets: ["StoreKitConfiguration"]),
        .library(name: "AppStoreFormats", targets: ["AppStoreFormats"]),
        .library(name: "AppStoreEngine", targets: ["AppStoreEngine"]),
        .library(name: "AppStoreSQLite", targets: ["AppStoreSQLite"]),
        .library(name: "AppStorePostgres", targets: ["AppStorePostgres"]),
        .library(name: "AppStoreHosting", targets: ["AppStoreHosting"]),
        .library(name: "AppStoreDeviceProtocol", targets: ["AppStoreDeviceProtocol"]),
        .library(name: "AppStoreServer", targets: ["AppStoreServer"]),
        .executable(name: "storekit", targets: ["StoreKitCLI"]),
    ],
    traits: [
        .trait(
            name: "SQLite",
            description: "OpenStoreKit opens an in-process store in a data directory (OPENSTOREKIT_CONFIG) with SQLite. Without it an app links no database: it talks to storekit serve (OPENSTOREKIT_SERVER) or runs SKTestSession in memory."
        ),
        .default(enabledTraits: ["SQLite"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        .package(url: "https://github.com/apple/swift-certificates", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-asn1", from: "1.7.4"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        // PostgreSQL storage: several servers on one database.
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        // `storekit serve --https-port`: TLS at Apple's host names, through Hummingbird's TLS channel.
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        // Renders the transaction manager's page from templates.
        .package(url: "https://github.com/hummingbird-project/swift-mustache", from: "2.1.1"),
        // Builds the DocC catalogs: `swift package generate-documentation`.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
        // `storekit bench http`: the load's HTTP client and its latency histogram.
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift", from: "0.2.0"),
        // `storekit serve`'s `/metrics`: recorded with swift-metrics, exported in Prometheus' text format.
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
    ],
    targets: [
        .target(name: "StoreKitConfiguration"),
        // The one fast JSON reader and writer, internal to the package: storage rows, signed payloads and HTTP bodies.
        .target(name: "JSONCoding"),
        .target(
            name: "AppStoreFormats",
            dependencies: [
                "JSONCoding",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ]
        ),
        .target(name: "AppStoreEngine", dependencies: ["StoreKitConfiguration", "AppStoreFormats", "JSONCoding"]),
        .target(
            name: "AppStoreSQLite",
            dependencies: ["AppStoreEngine", "AppStoreHosting", "JSONCoding", .product(name: "GRDB", package: "GRDB.swift"), .product(name: "GRDBSQLite", package: "GRDB.swift")]
        ),
        .target(
            name: "AppStorePostgres",
            dependencies: [
                "AppStoreEngine", "AppStoreFormats", "AppStoreHosting", "JSONCoding",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // Opening stores: data directories, environment variables, and a registry of databases by URL scheme that
        // links none of them (SQLite and PostgreSQL register themselves with it), so the client carries no database.
        .target(name: "AppStoreHosting", dependencies: ["AppStoreEngine", "AppStoreFormats", "StoreKitConfiguration"]),
        .target(name: "AppStoreDeviceProtocol", dependencies: ["AppStoreEngine"]),
        .target(
            name: "AppStoreServer",
            dependencies: [
                "AppStoreEngine", "AppStoreFormats", "StoreKitConfiguration", "AppStoreDeviceProtocol", "JSONCoding",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Mustache", package: "swift-mustache"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ],
            // The control API's OpenAPI document is a file of its own, compiled in as ControlAPIDocument.json.
            exclude: ["ControlAPI.json"],
            plugins: ["EmbedText"]
        ),
        // Compiles a text file into a module (the control API's document), so `storekit` stays one file.
        .executableTarget(name: "EmbedTextTool"),
        .plugin(name: "EmbedText", capability: .buildTool(), dependencies: ["EmbedTextTool"]),
        // The client: the store engine for an in-process store, the device protocol for a server's. No server and no
        // PostgreSQL; SQLite only with the SQLite trait (the default), for a store in a data directory.
        .target(
            name: "OpenStoreKit",
            dependencies: [
                "StoreKitConfiguration", "AppStoreFormats", "AppStoreEngine", "AppStoreHosting", "AppStoreDeviceProtocol",
                .target(name: "AppStoreSQLite", condition: .when(traits: ["SQLite"])),
            ]
        ),
        .target(
            name: "OpenStoreKitTest",
            dependencies: [
                "OpenStoreKit", "AppStoreEngine", "AppStoreFormats", "AppStoreHosting", "StoreKitConfiguration",
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        .executableTarget(
            name: "StoreKitCLI",
            dependencies: [
                "StoreKitConfiguration", "AppStoreFormats", "AppStoreEngine", "AppStoreSQLite", "AppStorePostgres", "AppStoreHosting",
                "AppStoreServer", .product(name: "ArgumentParser", package: "swift-argument-parser"),
                // `bench renewals` has SQLite copy rows by itself, for the floor it measures the renewals against.
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Histogram", package: "hdrhistogram-swift"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ]
        ),
        .executableTarget(
            name: "InAppPurchases",
            dependencies: ["OpenStoreKit"],
            path: "Examples/InAppPurchases"
        ),
        .executableTarget(
            name: "ModernStore",
            dependencies: ["OpenStoreKit"],
            path: "Examples/ModernStore"
        ),
        .target(name: "TestProcesses", path: "Tests/TestProcesses"),
        .testTarget(name: "StoreKitConfigurationTests", dependencies: ["StoreKitConfiguration"], exclude: ["Fixtures"]),
        .testTarget(name: "JSONCodingTests", dependencies: ["JSONCoding"]),
        .testTarget(
            name: "AppStoreFormatsTests",
            dependencies: [
                "AppStoreFormats", "TestProcesses",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ],
            exclude: ["Python"]
        ),
        .testTarget(
            name: "AppStoreEngineTests",
            dependencies: ["AppStoreEngine", "AppStoreFormats", "StoreKitConfiguration", "TestProcesses", .product(name: "Crypto", package: "swift-crypto")]
        ),
        .testTarget(
            name: "AppStoreSQLiteTests",
            dependencies: ["AppStoreSQLite", "AppStoreHosting", "AppStoreEngine", "AppStoreFormats", "JSONCoding", "StoreKitConfiguration", .product(name: "GRDB", package: "GRDB.swift"), "AppStorePostgres"]
        ),
        .testTarget(
            name: "AppStoreHostingTests",
            dependencies: ["AppStoreHosting", "AppStoreEngine", "AppStoreFormats", "StoreKitConfiguration", "AppStoreSQLite", "AppStorePostgres"]
        ),
        .testTarget(
            name: "AppStorePostgresTests",
            dependencies: [
                "AppStorePostgres", "AppStoreEngine", "AppStoreFormats",
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ]
        ),
        .testTarget(
            name: "AppStoreServerTests",
            dependencies: [
                "AppStoreServer", "AppStoreDeviceProtocol", "AppStoreEngine", "AppStoreFormats", "AppStoreSQLite", "StoreKitConfiguration", "TestProcesses",
                // A server's shutdown closing its stores' PostgreSQL handles (StoreServiceTests).
                "AppStoreHosting", "AppStorePostgres",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        .testTarget(
            name: "OpenStoreKitTests",
            dependencies: [
                "OpenStoreKit", "OpenStoreKitTest", "AppStoreEngine", "AppStoreFormats", "StoreKitConfiguration", "StoreKitCLI",
                "TestProcesses", .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            resources: [.process("Resources")]
        ),
        // The OpenStoreKit suite again, over HTTP: the same test files (symbolic links), with a `sessionTransport`
        // that serves each session's store on a loopback server.
        .testTarget(
            name: "OpenStoreKitHTTPTests",
            dependencies: [
                "OpenStoreKit", "OpenStoreKitTest", "AppStoreEngine", "AppStoreFormats", "AppStoreHosting", "AppStoreServer", "StoreKitConfiguration",
                "TestProcesses", .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            resources: [.process("Resources")]
        ),
        .testTarget(
            name: "StoreKitCLITests",
            dependencies: ["StoreKitCLI", "TestProcesses", "AppStoreEngine", "AppStoreSQLite", "AppStorePostgres", .product(name: "Crypto", package: "swift-crypto")]
        ),
        // A StoreKit wrapper written the way open-source ones for iOS are, compiled with only the import swapped
        // (issue 14); its tests subclass StoreKit's classes for doubles and also run it against an SKTestSession.
        .target(name: "PurchaseKit", dependencies: ["OpenStoreKit"], path: "Examples/PurchaseKit"),
        // Compile-time conformance: every declaration of StoreKit's Original API and StoreKitTest (api-surface.md parts
        // A and C) named with Apple's exact shape, so a drift fails the build at a line that names the declaration.
        // Crypto: the module StoreKit code on Linux imports for CryptoKit's `P256` (`VerificationResult.signature`).
        .testTarget(
            name: "APIConformanceTests",
            dependencies: ["OpenStoreKit", "OpenStoreKitTest", .product(name: "Crypto", package: "swift-crypto")]
        ),
        .testTarget(
            name: "PurchaseKitTests",
            dependencies: ["PurchaseKit", "OpenStoreKit", "OpenStoreKitTest", "AppStoreEngine", "AppStoreFormats"]
        ),
    ],
    swiftLanguageModes: [.v6]
)

// Every target compiles with the checks Swift's next language mode turns on: `any` spelled out for existentials,
// members visible only through the modules a file imports, and imports internal unless marked `public import`
// (so a module's public API names exactly the modules it exposes).
for target in package.targets where target.type != .plugin {
    target.swiftSettings = (target.swiftSettings ?? []) + [
        .enableUpcomingFeature("ExistentialAny"),
        .enableUpcomingFeature("MemberImportVisibility"),
        .enableUpcomingFeature("InternalImportsByDefault"),
    ]
}
