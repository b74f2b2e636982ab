import Foundation
import Testing

@testable import AppStoreFormats

/// Paths and fixed values shared by the tests.
enum Fixtures {
    /// The repository root: two levels above this file's folder (Tests/AppStoreFormatsTests/Support → root).
    static let repositoryRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// `../shared` from the repository root.
    static let shared = repositoryRoot.deletingLastPathComponent().appendingPathComponent("shared")

    /// The Apple-signed and Xcode-signed vectors.
    static let vectors = shared.appendingPathComponent("corpus/vectors")

    /// The Python helpers that drive Apple's app-store-server-library.
    static let pythonDirectory = repositoryRoot.appendingPathComponent("Tests/AppStoreFormatsTests/Python")

    /// A fixed "now" for tests: 2025-06-01T12:00:00Z.
    static let now = Date(timeIntervalSince1970: 1_748_779_200)

    /// The device of the hash vector in SOURCES.md (receipt-sandbox-g5-2025).
    static let sandboxDeviceUUID = UUID(uuidString: "956328D9-CC6A-47F4-BE40-6953FB0AB6C7")!

    static func vector(_ name: String) throws -> Data {
        try Data(contentsOf: vectors.appendingPathComponent(name))
    }

    static func vectorText(_ name: String) throws -> String {
        try String(contentsOf: vectors.appendingPathComponent(name), encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// A base64 vector decoded to its bytes.
    static func base64Vector(_ name: String) throws -> Data {
        let text = try vectorText(name).filter { !$0.isWhitespace }
        return try #require(Data(base64Encoded: text), "\(name) is not base64")
    }

    static var appleRootG3: Data { get throws { try vector("cert-AppleRootCA-G3.cer") } }
    static var appleRootCA: Data { get throws { try vector("cert-AppleIncRootCertificate.cer") } }
    static var storeKitTestCertificate: Data { get throws { try vector("cert-StoreKitTestCertificate.cer") } }

    /// A temporary directory removed when `body` returns.
    static func withTemporaryDirectory<T>(_ body: (URL) async throws -> T) async throws -> T {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("appstoreformats-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: url) }
        return try await body(url)
    }

    /// Flips one bit of the byte at `index` (negative counts from the end).
    static func flippingByte(of data: Data, at index: Int) -> Data {
        var bytes = Array(data)
        let position = index >= 0 ? index : bytes.count + index
        bytes[position] ^= 0x01
        return Data(bytes)
    }

    /// Changes one character of a JWS segment (0 header, 1 payload, 2 signature) while keeping it base64url.
    static func tamperingJWS(_ token: String, segment: Int) -> String {
        var parts = token.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        var characters = Array(parts[segment])
        let index = characters.count / 2
        characters[index] = characters[index] == "A" ? "B" : "A"
        parts[segment] = String(characters)
        return parts.joined(separator: ".")
    }
}
