// P256 keys are not marked Sendable by swift-crypto 3.12 on Linux; they are immutable and thread-safe to sign with.
@preconcurrency public import Crypto
public import Foundation

/// Makes promotional offer signatures, as a developer's server does with Apple's
/// `PromotionalOfferSignatureCreator` (V1) and `PromotionalOfferV2SignatureCreator` (V2). Tests and the CLI
/// use it to produce signatures the store must accept.
public struct PromotionalOfferSigner: Sendable {
    private let privateKey: P256.Signing.PrivateKey
    /// The key identifier written into signatures.
    public let keyID: String
    /// The app's bundle identifier.
    public let bundleID: String

    /// A signer with a P-256 private key.
    public init(privateKey: P256.Signing.PrivateKey, keyID: String, bundleID: String) {
        self.privateKey = privateKey
        self.keyID = keyID
        self.bundleID = bundleID
    }

    /// A signer with a PEM private key (an App Store Connect `.p8` file).
    public init(privateKeyPEM: String, keyID: String, bundleID: String) throws {
        do {
            self.init(privateKey: try P256.Signing.PrivateKey(pemRepresentation: privateKeyPEM), keyID: keyID, bundleID: bundleID)
        } catch {
            throw FormatError.malformedKey("The PEM is not a P-256 private key: \(error)")
        }
    }

    /// A signer with a `.storekit` file's `subscriptionOffersKeyPair.privateKey` (base64 DER PKCS#8).
    public init(storeKitPrivateKey base64: String, keyID: String, bundleID: String) throws {
        self.init(privateKey: try PromotionalOfferKey.privateKey(fromStoreKit: base64), keyID: keyID, bundleID: bundleID)
    }

    /// The registered key that verifies this signer's signatures.
    public var key: PromotionalOfferKey { PromotionalOfferKey(keyID: keyID, publicKey: privateKey.publicKey) }

    /// Signs a V1 promotional offer.
    /// - Parameters:
    ///   - productID: The subscription the offer is for.
    ///   - offerID: The promotional offer's identifier in the configuration.
    ///   - appAccountToken: The app's account token, lowercase, or empty.
    ///   - nonce: A fresh UUID; a nonce is accepted once.
    ///   - timestamp: Milliseconds since 1970 (the caller's clock; the module reads none).
    public func signV1(
        productID: String, offerID: String, appAccountToken: String = "", nonce: UUID, timestamp: Int64
    ) throws -> PromotionalOfferSignatureV1 {
        let payload = PromotionalOfferSignatureV1.payload(
            bundleID: bundleID, keyID: keyID, productID: productID, offerID: offerID,
            appAccountToken: appAccountToken, nonce: nonce, timestamp: timestamp
        )
        let signature = try privateKey.signature(for: payload)
        return PromotionalOfferSignatureV1(
            bundleID: bundleID, keyID: keyID, productID: productID, offerID: offerID,
            appAccountToken: appAccountToken, nonce: nonce, timestamp: timestamp,
            signature: signature.derRepresentation.base64EncodedString()
        )
    }

    /// Signs a V2 (JWS) promotional offer: header `{"alg":"ES256","typ":"JWT","kid":keyID}`.
    /// - Parameters:
    ///   - productID: The subscription the offer is for.
    ///   - offerID: The promotional offer's identifier in the configuration.
    ///   - transactionID: The customer's transaction the offer applies to, if any.
    ///   - issuerID: The In-App Purchase key's issuer, if any.
    ///   - nonce: A fresh UUID; a nonce is accepted once.
    ///   - issuedAt: Seconds since 1970.
    public func signV2(
        productID: String, offerID: String, transactionID: String? = nil, issuerID: String?, nonce: UUID,
        issuedAt: Int64
    ) throws -> String {
        let claims = PromotionalOfferV2Claims(
            bundleID: bundleID, issuerID: issuerID, issuedAt: issuedAt, nonce: nonce, productID: productID,
            offerIdentifier: offerID, transactionID: transactionID
        )
        return try signJWS(claims)
    }

    /// Signs an introductory offer eligibility as a JWS, as Apple's `IntroductoryOfferEligibilitySignatureCreator`
    /// does, with the same header as ``signV2(productID:offerID:transactionID:issuerID:nonce:issuedAt:)``.
    /// - Parameters:
    ///   - productID: The subscription the eligibility is for.
    ///   - allowIntroductoryOffer: Whether the purchase gets the product's introductory offer.
    ///   - transactionID: A transaction of the customer, if any.
    ///   - issuerID: The In-App Purchase key's issuer, if any.
    ///   - nonce: A fresh UUID.
    ///   - issuedAt: Seconds since 1970.
    public func signIntroductoryOfferEligibility(
        productID: String, allowIntroductoryOffer: Bool, transactionID: String? = nil, issuerID: String?, nonce: UUID,
        issuedAt: Int64
    ) throws -> String {
        try signJWS(IntroductoryOfferEligibilityClaims(
            bundleID: bundleID, issuerID: issuerID, issuedAt: issuedAt, nonce: nonce, productID: productID,
            allowIntroductoryOffer: allowIntroductoryOffer, transactionID: transactionID
        ))
    }

    /// Signs an Advanced Commerce in-app request, as Apple's `AdvancedCommerceAPIInAppSignatureCreator` does: the
    /// compact JWS an app passes to `AdvancedCommerceProduct.purchase(compactJWS:)`.
    ///
    /// - Parameters:
    ///   - request: A `CREATE_ONE_TIME_CHARGE` or `CREATE_SUBSCRIPTION` request.
    ///   - issuerID: The In-App Purchase key's issuer, if any.
    ///   - nonce: A fresh UUID.
    ///   - issuedAt: Seconds since 1970.
    public func signAdvancedCommerceRequest(_ request: AdvancedCommerceInAppRequest, issuerID: String?, nonce: UUID, issuedAt: Int64) throws -> String {
        try signJWS(AdvancedCommerceInAppClaims(bundleID: bundleID, issuerID: issuerID, issuedAt: issuedAt, nonce: nonce, request: request))
    }

    /// `claims` signed as a compact JWS: header `{"alg":"ES256","typ":"JWT","kid":keyID}`.
    private func signJWS(_ claims: some Encodable) throws -> String {
        var header = [UInt8]()
        JSONValue.object([
            .init(key: "alg", value: .string("ES256")), .init(key: "typ", value: .string("JWT")),
            .init(key: "kid", value: .string(keyID)),
        ]).write(to: &header, indent: nil, level: 0)
        let signingInput = Base64.urlEncoded(header) + "." + Base64.urlEncoded(try AppStoreJSON.encode(claims))
        let signature = try privateKey.signature(for: Data(signingInput.utf8))
        return signingInput + "." + Base64.urlEncoded(signature.rawRepresentation)
    }
}
