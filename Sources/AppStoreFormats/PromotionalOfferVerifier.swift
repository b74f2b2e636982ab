// P256 keys are not marked Sendable by swift-crypto 3.12 on Linux; they are immutable and thread-safe to use.
@preconcurrency import Crypto
public import Foundation

/// Checks promotional offer signatures against the developer's registered keys, as the App Store does when a
/// purchase carries a promotional offer.
///
/// Nonce reuse is not tracked here: that needs state, which the store engine keeps.
public struct PromotionalOfferVerifier: Sendable {
    let keys: [String: PromotionalOfferKey]
    /// How far a signature's timestamp may be from `now` (24 hours, as Apple documents).
    public let validity: TimeInterval

    /// Creates a verifier for the given keys.
    public init(keys: [PromotionalOfferKey], validity: TimeInterval = 86_400) {
        self.keys = Dictionary(keys.map { ($0.keyID, $0) }, uniquingKeysWith: { _, last in last })
        self.validity = validity
    }

    /// Verifies a V1 signature at time `now`.
    public func verifyV1(
        _ offer: PromotionalOfferSignatureV1, now: Date
    ) -> Result<Void, PromotionalOfferVerificationFailure> {
        guard let key = keys[offer.keyID] else {
            return .failure(.unknownKey.with("No promotional offer key with ID \(offer.keyID) is registered."))
        }
        guard let der = Base64.decodeIgnoringWhitespace(offer.signature),
            let signature = try? P256.Signing.ECDSASignature(derRepresentation: der)
        else {
            return .failure(.malformedSignature.with("The signature is not a base64 DER ECDSA signature."))
        }
        guard key.publicKey.isValidSignature(signature, for: offer.signedPayload) else {
            return .failure(.invalidSignature)
        }
        let signedAt = Date(timeIntervalSince1970: Double(offer.timestamp) / 1000)
        guard abs(now.timeIntervalSince(signedAt)) <= validity else {
            return .failure(.timestampOutOfRange.with("The signature's timestamp \(signedAt) is more than 24 hours from \(now)."))
        }
        return .success(())
    }

    /// Verifies a V2 (JWS) signature at time `now` for the given app, and — when given — product and offer.
    public func verifyV2(
        _ compactJWS: String, bundleID: String, productID: String? = nil, offerID: String? = nil, now: Date
    ) -> Result<PromotionalOfferV2Claims, PromotionalOfferVerificationFailure> {
        guard let token = try? CompactJWS(compactJWS), token.algorithm == "ES256", let keyID = token.keyID else {
            return .failure(.malformedSignature.with("The token is not an ES256 compact JWS with a kid header."))
        }
        guard let key = keys[keyID] else {
            return .failure(.unknownKey.with("No promotional offer key with ID \(keyID) is registered."))
        }
        guard let signature = try? P256.Signing.ECDSASignature(rawRepresentation: token.signature) else {
            return .failure(.malformedSignature.with("The signature is not a 64-byte raw ES256 signature."))
        }
        guard key.publicKey.isValidSignature(signature, for: token.signingInput) else {
            return .failure(.invalidSignature)
        }
        guard let claims = try? token.decodePayload(as: PromotionalOfferV2Claims.self) else {
            return .failure(.malformedSignature.with("The token's claims are not a promotional offer."))
        }
        guard claims.audience == PromotionalOfferV2Claims.promotionalOfferAudience else {
            return .failure(.wrongAudience.with("The token's aud is \(claims.audience)."))
        }
        guard claims.bundleID == bundleID else {
            return .failure(.wrongBundleID.with("The token is for \(claims.bundleID), not \(bundleID)."))
        }
        if let productID, claims.productID != productID {
            return .failure(.wrongProduct.with("The token is for \(claims.productID), not \(productID)."))
        }
        if let offerID, claims.offerIdentifier != offerID {
            return .failure(.wrongOffer.with("The token is for offer \(claims.offerIdentifier), not \(offerID)."))
        }
        let issuedAt = Date(timeIntervalSince1970: Double(claims.issuedAt))
        guard abs(now.timeIntervalSince(issuedAt)) <= validity else {
            return .failure(.timestampOutOfRange.with("The token was issued at \(issuedAt), more than 24 hours from \(now)."))
        }
        return .success(claims)
    }

    /// Verifies a signed introductory offer eligibility (a JWS like a V2 promotional offer's, with the audience
    /// `introductory-offer-eligibility`) at time `now` for the given app and product.
    public func verifyIntroductoryOfferEligibility(
        _ compactJWS: String, bundleID: String, productID: String, now: Date
    ) -> Result<IntroductoryOfferEligibilityClaims, PromotionalOfferVerificationFailure> {
        guard let token = try? CompactJWS(compactJWS), token.algorithm == "ES256", let keyID = token.keyID else {
            return .failure(.malformedSignature.with("The token is not an ES256 compact JWS with a kid header."))
        }
        guard let key = keys[keyID] else {
            return .failure(.unknownKey.with("No In-App Purchase key with ID \(keyID) is registered."))
        }
        guard let signature = try? P256.Signing.ECDSASignature(rawRepresentation: token.signature) else {
            return .failure(.malformedSignature.with("The signature is not a 64-byte raw ES256 signature."))
        }
        guard key.publicKey.isValidSignature(signature, for: token.signingInput) else {
            return .failure(.invalidSignature)
        }
        guard let claims = try? token.decodePayload(as: IntroductoryOfferEligibilityClaims.self) else {
            return .failure(.malformedSignature.with("The token's claims are not an introductory offer eligibility."))
        }
        guard claims.audience == IntroductoryOfferEligibilityClaims.introductoryOfferEligibilityAudience else {
            return .failure(.wrongAudience.with("The token's aud is \(claims.audience), not introductory-offer-eligibility."))
        }
        guard claims.bundleID == bundleID else {
            return .failure(.wrongBundleID.with("The token is for \(claims.bundleID), not \(bundleID)."))
        }
        guard claims.productID == productID else {
            return .failure(.wrongProduct.with("The token is for \(claims.productID), not \(productID)."))
        }
        let issuedAt = Date(timeIntervalSince1970: Double(claims.issuedAt))
        guard abs(now.timeIntervalSince(issuedAt)) <= validity else {
            return .failure(.timestampOutOfRange.with("The token was issued at \(issuedAt), more than 24 hours from \(now)."))
        }
        return .success(claims)
    }
}
