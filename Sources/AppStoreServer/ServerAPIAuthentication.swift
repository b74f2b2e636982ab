import AppStoreFormats
@preconcurrency import Crypto
public import Foundation

/// Checks the bearer tokens of App Store Server API requests as Apple does: an ES256 JWT whose `kid` names a known,
/// unrevoked key, signed by it, with that key's issuer as `iss`, `aud` `appstoreconnect-v1`, a `bid`, and an `exp`
/// in the future at most an hour after `iat` (or after now: Apple's server libraries send no `iat`).
struct ServerAPIAuthenticator: Sendable {
    /// The rings a token's key is looked up in, in order: a tenant's own keys, then the server's.
    let keyRings: [ServerAPIKeyRing]

    init(keyRings: [ServerAPIKeyRing]) {
        self.keyRings = keyRings
    }

    init(keys: [ServerAPIKey]) {
        keyRings = [ServerAPIKeyRing(keys: keys)]
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
    func bundleID(authorization header: String?, now: Date) -> Result<String, AuthenticationFailure> {
        guard let header, header.hasPrefix("Bearer ") else { return .failure(.init("The request has no Authorization: Bearer token.")) }
        guard let token = try? CompactJWS(String(header.dropFirst("Bearer ".count))) else {
            return .failure(.init("The bearer token is not a JWT."))
        }
        guard token.algorithm == "ES256" else { return .failure(.init("The token's alg is \(token.algorithm ?? "missing"), not ES256.")) }
        guard let keyID = token.keyID, let key = keyRings.lazy.compactMap({ $0.key(keyID) }).first, !key.revoked, let publicKey = key.publicKey else {
            return .failure(.init("The token's kid \(token.keyID ?? "(none)") is not an active key of this store. Create one with `storekit keys create`."))
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
        ServerAPIAuthenticator(keys: keys).bundleID(authorization: authorization, now: now)
    }
}
