import AppStoreServer
@preconcurrency import Crypto
import Foundation
import FuzzSupport

// Fuzzes the App Store Server API bearer-token check `storekit serve` runs on every `/inApps/` request. The input is
// the `Authorization` header (`Bearer ` is added when it is missing). An input that starts with `{` is also made
// into a token signed with the fuzzing key: its first line is the JWT header when a second `{` line follows,
// otherwise the fixed ES256 header; the rest is the claims, so the claim checks run behind a valid signature.

/// A fixed P-256 key, so seeds written by one run verify in the next.
let privateKey: P256.Signing.PrivateKey = {
    do {
        return try P256.Signing.PrivateKey(rawRepresentation: Data(repeating: 0x2A, count: 32))
    } catch {
        fatalError("The fuzzing key could not be made: \(error)")
    }
}()

let keyID = "FUZZKEY001"
let issuerID = "57246542-96fe-1a63-e053-0824d011072a"
let keys = [
    ServerAPIKey(keyID: keyID, issuerID: issuerID, publicKey: privateKey.publicKey, created: fuzzNow),
    ServerAPIKey(keyID: "REVOKED001", issuerID: issuerID, publicKey: privateKey.publicKey, created: fuzzNow, revoked: true),
]
let fixedHeader = #"{"alg":"ES256","kid":"FUZZKEY001","typ":"JWT"}"#

/// `header.claims.signature`, signed with the fuzzing key.
func token(header: Data, claims: Data) -> String? {
    let signingInput = base64URL(header) + "." + base64URL(claims)
    guard let signature = try? privateKey.signature(for: Data(signingInput.utf8)) else { return nil }
    return signingInput + "." + base64URL(signature.rawRepresentation)
}

/// Tokens as a backend makes them (with and without `iat`), one expired and one for a revoked key, and bare claims.
func seeds() throws -> [String: Data] {
    let now = Int(fuzzNow.timeIntervalSince1970)
    let claims = #"{"iss":"\#(issuerID)","iat":\#(now),"exp":\#(now + 1_800),"aud":"appstoreconnect-v1","bid":"com.example.app"}"#
    let noIAT = #"{"iss":"\#(issuerID)","exp":\#(now + 1_800),"aud":"appstoreconnect-v1","bid":"com.example.app"}"#
    let expired = #"{"iss":"\#(issuerID)","iat":\#(now - 7_200),"exp":\#(now - 3_600),"aud":"appstoreconnect-v1","bid":"com.example.app"}"#
    let revokedHeader = #"{"alg":"ES256","kid":"REVOKED001","typ":"JWT"}"#
    var seeds: [String: Data] = [
        "own-claims.json": Data(claims.utf8),
        "own-header-and-claims.json": Data((fixedHeader + "\n" + claims).utf8),
    ]
    let made: [(String, String, String)] = [
        ("own-token", fixedHeader, claims), ("own-token-no-iat", fixedHeader, noIAT),
        ("own-token-expired", fixedHeader, expired), ("own-token-revoked-key", revokedHeader, claims),
    ]
    for (name, header, body) in made {
        guard let signed = token(header: Data(header.utf8), claims: Data(body.utf8)) else { continue }
        seeds[name + ".txt"] = Data(("Bearer " + signed).utf8)
    }
    return seeds
}

@_cdecl("LLVMFuzzerInitialize")
public func initialize(_ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutableRawPointer) -> CInt {
    writeSeedsIfAsked(seeds)
    return 0
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ bytes: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let data = fuzzInput(bytes, size)
    let text = String(decoding: data, as: UTF8.self)
    _ = ServerAPITokenCheck.bundleID(authorization: text.hasPrefix("Bearer ") ? text : "Bearer " + text, keys: keys, now: fuzzNow)
    if data.first == UInt8(ascii: "{") {
        let lines = data.split(separator: UInt8(ascii: "\n"), maxSplits: 1, omittingEmptySubsequences: false)
        let (header, claims) =
            lines.count == 2 && lines[1].first == UInt8(ascii: "{")
            ? (Data(lines[0]), Data(lines[1])) : (Data(fixedHeader.utf8), data)
        if let signed = token(header: header, claims: claims) {
            _ = ServerAPITokenCheck.bundleID(authorization: "Bearer " + signed, keys: keys, now: fuzzNow)
        }
    }
    return 0
}

/// The `main` SwiftPM gives this executable calls this: libFuzzer takes over with ``fuzz(_:_:)``.
@_cdecl("FuzzServerAPIToken_main")
public func fuzzerMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    runFuzzer(argc, argv, fuzz)
}
