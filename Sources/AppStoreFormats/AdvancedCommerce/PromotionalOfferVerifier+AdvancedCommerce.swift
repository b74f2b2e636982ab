// P256 keys are not marked Sendable by swift-crypto 3.12 on Linux; they are immutable and thread-safe to use.
@preconcurrency import Crypto
public import Foundation

extension PromotionalOfferVerifier {
    /// Verifies a signed Advanced Commerce in-app request (what Apple's `AdvancedCommerceAPIInAppSignatureCreator`
    /// makes, and an app passes to `AdvancedCommerceProduct.purchase(compactJWS:)`) at time `now` for the app: an
    /// ES256 JWS whose `kid` names an In-App Purchase key the store knows, with the audience `advanced-commerce-api`,
    /// the app's bundle ID, and an `iat` within 24 hours of `now`.
    ///
    /// The request inside is not checked here: see ``AdvancedCommerceInAppRequest/validationError()``.
    public func verifyAdvancedCommerceRequest(
        _ compactJWS: String, bundleID: String, now: Date
    ) -> Result<AdvancedCommerceInAppClaims, PromotionalOfferVerificationFailure> {
        guard let token = try? CompactJWS(compactJWS), token.algorithm == "ES256", let keyID = token.keyID else {
            return .failure(.malformedSignature.with("The request is not an ES256 compact JWS with a kid header."))
        }
        guard let key = keys[keyID] else {
            return .failure(.unknownKey.with("No In-App Purchase key with ID \(keyID) is registered."))
        }
        guard let signature = try? P256.Signing.ECDSASignature(rawRepresentation: token.signature) else {
            return .failure(.malformedSignature.with("The signature is not a 64-byte raw ES256 signature."))
        }
        guard key.publicKey.isValidSignature(signature, for: token.signingInput) else {
            return .failure(.invalidSignature.with("The request's signature does not match key \(keyID)."))
        }
        guard let claims = try? token.decodePayload(as: AdvancedCommerceInAppClaims.self) else {
            return .failure(.malformedSignature.with("The token's claims are not an Advanced Commerce request (bid, aud, iat and request are needed)."))
        }
        guard claims.audience == AdvancedCommerceInAppClaims.advancedCommerceAudience else {
            return .failure(.wrongAudience.with("The token's aud is \(claims.audience), not advanced-commerce-api."))
        }
        guard claims.bundleID == bundleID else {
            return .failure(.wrongBundleID.with("The request is for \(claims.bundleID), not \(bundleID)."))
        }
        let issuedAt = Date(timeIntervalSince1970: Double(claims.issuedAt))
        guard abs(now.timeIntervalSince(issuedAt)) <= validity else {
            return .failure(.timestampOutOfRange.with("The request was signed at \(issuedAt), more than 24 hours from \(now)."))
        }
        return .success(claims)
    }
}
