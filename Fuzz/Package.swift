// swift-tools-version: 6.0
import Foundation
import PackageDescription

/// The main package's identity: SwiftPM names a path dependency after its folder, which is the checkout's name.
let openStoreKit = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().lastPathComponent

/// libFuzzer targets for OpenStoreKit's parsers and verifiers, kept out of the main package so its ordinary build
/// never needs the fuzzer runtime. Build and run them with `Scripts/fuzz.sh` from the repository root:
///
///     swift build -c release --scratch-path .build-fuzz -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library
///
/// Each executable defines `LLVMFuzzerTestOneInput` and, since SwiftPM's `main` calls `<Module>_main`, defines that
/// too, handing the command line to libFuzzer's `LLVMFuzzerRunDriver`.
let package = Package(
    name: "OpenStoreKitFuzz",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(path: ".."),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
    ],
    targets: [
        .target(name: "CFuzzDriver"),
        .target(name: "FuzzSupport", dependencies: ["CFuzzDriver", .product(name: "AppStoreFormats", package: openStoreKit)]),
        .executableTarget(
            name: "FuzzReceipt",
            dependencies: ["FuzzSupport", .product(name: "AppStoreFormats", package: openStoreKit)]
        ),
        .executableTarget(
            name: "FuzzJWS",
            dependencies: ["FuzzSupport", .product(name: "AppStoreFormats", package: openStoreKit)]
        ),
        .executableTarget(
            name: "FuzzStoreKitFile",
            dependencies: ["FuzzSupport", .product(name: "StoreKitConfiguration", package: openStoreKit)]
        ),
        .executableTarget(
            name: "FuzzServerAPIToken",
            dependencies: [
                "FuzzSupport",
                .product(name: "AppStoreServer", package: openStoreKit),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
