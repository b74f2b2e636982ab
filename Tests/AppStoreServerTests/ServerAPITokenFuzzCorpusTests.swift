import AppStoreServer
import Crypto
import Foundation
import Testing

/// What the libFuzzer target `FuzzServerAPIToken` (in `Fuzz/`) does with an input — the bearer-token check of
/// `ServerAPITokenCheck` — run over its kinds of seeds and simple mutations of them, so every test run exercises
/// them without libFuzzer.
@Suite("Fuzz corpus: App Store Server API tokens")
struct ServerAPITokenFuzzCorpusTests {
    @Test("A good token passes; its mutations and odd headers are refused with a reason, never a trap")
    func tokensAndMutations() throws {
        let privateKey = P256.Signing.PrivateKey()
        let now = Date(timeIntervalSince1970: 1_748_779_200)
        let key = ServerAPIKey(keyID: "ABCDEF1234", issuerID: ServerAPIAuthenticationTests.issuer, publicKey: privateKey.publicKey, created: now)
        var claims = ServerAPIAuthenticationTests.claims()
        claims["iat"] = Int(now.timeIntervalSince1970)
        claims["exp"] = Int(now.timeIntervalSince1970) + 1_200
        let token = try ServerAPIAuthenticationTests.token(header: ["alg": "ES256", "kid": "ABCDEF1234", "typ": "JWT"], claims: claims, signer: privateKey)
        #expect(try ServerAPITokenCheck.bundleID(authorization: "Bearer " + token, keys: [key], now: now).get() == "com.example.demo")

        var headers: [String?] = [nil, "", "Bearer", "Bearer ", "Bearer ..", "Bearer a.b.c", "Basic " + token, "Bearer " + token + "."]
        let bytes = Array(token.utf8)
        for step in 1...24 {
            var changed = bytes
            let index = bytes.count * step / 25
            changed[index] = changed[index] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
            headers.append("Bearer " + String(decoding: changed, as: UTF8.self))
            headers.append("Bearer " + String(decoding: bytes.prefix(index), as: UTF8.self))
        }
        for header in headers {
            if case .failure(let failure) = ServerAPITokenCheck.bundleID(authorization: header, keys: [key], now: now) {
                #expect(!failure.reason.isEmpty)
            }
        }
    }
}
