import AppStoreEngine
import AppStoreFormats
@preconcurrency import Crypto
public import Foundation

/// Checks the bearer tokens of App Store Server API requests as Apple does: an ES256 JWT whose `kid` names a known,
/// unrevoked key, signed by it, with that key's issuer as `iss`, `aud` `appstoreconnect-v1`, a `bid`, and an `exp`
/// in the future at most an hour after `iat` (or after now: Apple's server libraries send no `iat`).
struct ServerAPIAuthenticator: Sendable {
    /// The rings a token's key is looked up in, in order: a tenant's own keys (and the server-wide keys of its
    /// storage), then the server's. Each ring over a storage reads one row per lookup.
    let keyRings: [ServerAPIKeyRing]

    init(keyRings: [ServerAPIKeyRing]) {
        self.keyRings = keyRings
    }

    /// The claims a token must carry.
    private struct Claims: Decodable {
        var iss: String?
        var iat: Double?
        var exp: Double?
        var aud: String?
        var bid: String?
    }

    /// The bundle identifier a request's `Authorization` header is for, or why it is refused.
    ///
    /// Token lifetimes are checked against `now`: wall time, as the tokens are made from it, not the store's clock.
    ///
    /// - Throws: `StoreError.storageFailure` when the token's key cannot be read from storage.
    func bundleID(authorization header: String?, now: Date) async throws(StoreError) -> Result<String, AuthenticationFailure> {
        let token: CompactJWS
        switch Self.token(authorization: header) {
        case .failure(let failure): return .failure(failure)
        case .success(let value): token = value
        }
        var key: ServerAPIKey?
        if let keyID = token.keyID {
            for ring in keyRings {
                key = try await ring.key(keyID)
                if key != nil { break }
            }
        }
        return Self.bundleID(token: token, key: key, now: now)
    }

    /// The ES256 JWT of an `Authorization` header, or why it has none.
    static func token(authorization header: String?) -> Result<CompactJWS, AuthenticationFailure> {
        guard let header, header.hasPrefix("Bearer ") else { return .failure(.init("The request has no Authorization: Bearer token.")) }
        guard let token = try? CompactJWS(String(header.dropFirst("Bearer ".count))) else {
            return .failure(.init("The bearer token is not a JWT."))
        }
        guard token.algorithm == "ES256" else { return .failure(.init("The token's alg is \(token.algorithm ?? "missing"), not ES256.")) }
        return .success(token)
    }

    /// The bundle identifier a token signed with `key`, the key its `kid` names (`nil` when there is none), is for.
    static func bundleID(token: CompactJWS, key: ServerAPIKey?, now: Date) -> Result<String, AuthenticationFailure> {
        guard let keyID = token.keyID, let key, !key.revoked, let publicKey = key.publicKey else {
            return .failure(.init("The token's kid \(token.keyID ?? "(none)") is not an active key of this store: a request at Apple's paths reaches the tenant whose key signed it, so a key no tenant holds reaches no store. Make one with `storekit keys create --issuer ISSUER` (add --tenant NAME for one tenant's) or POST /control/keys (/t/NAME/control/keys)."))
        }
        guard let signature = try? P256.Signing.ECDSASignature(rawRepresentation: token.signature),
              publicKey.isValidSignature(signature, for: token.signingInput) else {
            return .failure(.init("The token's signature does not verify with key \(keyID)."))
        }
        guard let claims = try? JSONDecoder().decode(Claims.self, from: token.payload) else {
            return .failure(.init("The token's claims are not a JSON object."))
        }
        guard claims.iss == key.issuerID else { return .failure(.init("The token's iss is not the issuer of key \(keyID).")) }
        guard claims.aud == "appstoreconnect-v1" else { return .failure(.init("The token's aud is not appstoreconnect-v1.")) }
        guard let expires = claims.exp else { return .failure(.init("The token has no exp.")) }
        guard expires > now.timeIntervalSince1970 else { return .failure(.init("The token expired.")) }
        // Apple's own libraries leave iat out; then the hour counts from now.
        guard expires - (claims.iat ?? now.timeIntervalSince1970) <= 3_600 else {
            return .failure(.init("The token lives longer than 60 minutes."))
        }
        guard let bundleID = claims.bid, !bundleID.isEmpty else { return .failure(.init("The token has no bid.")) }
        return .success(bundleID)
    }
}

/// Why an App Store Server API request's bearer token was refused; the server answers 401 and logs the reason.
public struct AuthenticationFailure: Error, Sendable, CustomStringConvertible {
    /// What is wrong with the token, in a sentence that says what to fix.
    public let reason: String
    init(_ reason: String) { self.reason = reason }
    /// The reason.
    public var description: String { reason }
}

/// The App Store Server API's bearer-token check, without a server.
///
/// `storekit serve` runs this check on every `/inApps/` request. Call it to test the tokens a backend makes before
/// pointing the backend at a server, or to fuzz the check (`Fuzz/`): it never traps, whatever the header holds.
public enum ServerAPITokenCheck {
    /// The bundle identifier (`bid`) an `Authorization` header's token is for, or why the token is refused.
    ///
    /// - Parameters:
    ///   - authorization: The whole header value, `Bearer <JWT>`, or nil when the request has none.
    ///   - keys: The In-App Purchase keys tokens may be signed with.
    ///   - now: The time token lifetimes are checked against.
    public static func bundleID(
        authorization: String?, keys: [ServerAPIKey], now: Date
    ) -> Result<String, AuthenticationFailure> {
        ServerAPIAuthenticator.token(authorization: authorization).flatMap { token in
            ServerAPIAuthenticator.bundleID(token: token, key: keys.last { $0.keyID == token.keyID }, now: now)
        }
    }
}
