import Crypto
import Foundation
import TestProcesses
import Testing

/// `storekit keys`: the server's App Store Server API keys, kept in the store's storage.
@Suite("storekit keys")
struct KeysCommandTests {
    @Test("A data directory of an earlier version keeps its keys: `storekit keys` moves api-keys.json into the database once and renames it .imported")
    func keyFileIsImported() async throws {
        let dataDirectory = temporaryDataDirectory()
        try FileManager.default.createDirectory(at: dataDirectory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dataDirectory) }
        // As earlier versions wrote the file.
        let pem = P256.Signing.PrivateKey().publicKey.pemRepresentation
        let file = dataDirectory.appendingPathComponent("api-keys.json")
        let json = #"[{"created": "2026-01-15T12:00:00Z", "issuerID": "issuer-old", "keyID": "OLDKEY0001", "publicKeyPEM": \#(try String(decoding: JSONEncoder().encode(pem), as: UTF8.self)), "revoked": false}]"#
        try Data(json.utf8).write(to: file)

        let listed = try await storekit(["keys", "list", "--data-dir", dataDirectory.path])
        #expect(listed.status == 0, "\(listed.errorOutput)")
        #expect(listed.output.contains("OLDKEY0001  issuer issuer-old"), "\(listed.output)")
        #expect(listed.errorOutput.contains("Moved 1 App Store Server API key(s)"), "\(listed.errorOutput)")
        #expect(!FileManager.default.fileExists(atPath: file.path))
        #expect(FileManager.default.fileExists(atPath: file.path + ".imported"))

        #expect(try await storekit(["keys", "revoke", "OLDKEY0001", "--data-dir", dataDirectory.path]).status == 0)
        let again = try await storekit(["keys", "list", "--data-dir", dataDirectory.path])
        #expect(again.output.contains("OLDKEY0001") && again.output.contains("revoked"), "kept in the database: \(again.output)")
        let unknown = try await storekit(["keys", "revoke", "NOSUCHKEY0", "--data-dir", dataDirectory.path])
        #expect(unknown.status != 0 && unknown.errorOutput.contains("No key NOSUCHKEY0"))
    }
}
