// B.5 VerificationResult and its JWS members for the three signed types, checked against api-surface.md: each
// declaration's check follows a comment naming it.
import Crypto
import Foundation
import OpenStoreKit
import Testing

/// Names every case: a case added to or removed from `VerificationResult` breaks this `switch`.
private func name<T>(_ result: VerificationResult<T>) -> String {
    switch result {
    case .verified: "verified"
    case .unverified: "unverified"
    }
}

/// Names every case of `VerificationResult.VerificationError`.
private func name<T>(_ error: VerificationResult<T>.VerificationError) -> String {
    switch error {
    case .revokedCertificate: "revokedCertificate"
    case .invalidCertificateChain: "invalidCertificateChain"
    case .invalidDeviceVerification: "invalidDeviceVerification"
    case .invalidEncoding: "invalidEncoding"
    case .invalidSignature: "invalidSignature"
    case .missingRequiredProperties: "missingRequiredProperties"
    }
}

@Suite("B.5 VerificationResult has Apple's declarations")
struct VerificationResultConformance {
    @Test("B.5 VerificationResult: its cases, payload accessors and VerificationError")
    func verificationResult() throws {
        // B.5 VerificationResult — @frozen generic enum, Sendable and Hashable when its payload is
        requireSendable(VerificationResult<Transaction>.self)
        requireHashable(VerificationResult<Transaction>.self)
        // B.5 VerificationResult.verified(_:)
        let _: (Transaction) -> VerificationResult<Transaction> = VerificationResult<Transaction>.verified
        // B.5 VerificationResult.unverified(_:_:)
        let _: (Transaction, VerificationResult<Transaction>.VerificationError) -> VerificationResult<Transaction> =
            VerificationResult<Transaction>.unverified
        // B.5 VerificationResult.payloadValue — get throws
        let _: (VerificationResult<Transaction>) throws -> Transaction = { try $0.payloadValue }
        // B.5 VerificationResult.unsafePayloadValue
        let _: KeyPath<VerificationResult<Transaction>, Transaction> = \.unsafePayloadValue

        // The generic enum works for any Sendable payload, as SKTestFailures.Verification's `Any` payload needs.
        let verified = VerificationResult<Int>.verified(1)
        let unverified = VerificationResult<Int>.unverified(2, .invalidSignature)
        #expect(name(verified) == "verified" && name(unverified) == "unverified")
        #expect(try verified.payloadValue == 1 && unverified.unsafePayloadValue == 2)
        #expect(throws: VerificationResult<Int>.VerificationError.invalidSignature) { try unverified.payloadValue }

        // B.5 VerificationResult.VerificationError — enum: Error, LocalizedError, Sendable
        typealias Failure = VerificationResult<Any>.VerificationError
        requireLocalizedError(Failure.self)
        requireSendable(Failure.self)
        // B.5 VerificationError.revokedCertificate, invalidCertificateChain, invalidDeviceVerification,
        // invalidEncoding, invalidSignature, missingRequiredProperties
        let failures: [Failure] = [
            .revokedCertificate, .invalidCertificateChain, .invalidDeviceVerification, .invalidEncoding, .invalidSignature,
            .missingRequiredProperties,
        ]
        #expect(Set(failures.map { name($0) }).count == 6)
    }

    @Test("B.5 the JWS members of VerificationResult<Transaction>, <RenewalInfo> and <AppTransaction>")
    func jwsMembers() {
        typealias OfTransaction = VerificationResult<Transaction>
        // B.5 VerificationResult<Transaction>.jwsRepresentation
        let _: KeyPath<OfTransaction, String> = \.jwsRepresentation
        // B.5 VerificationResult<Transaction>.headerData
        let _: KeyPath<OfTransaction, Data> = \.headerData
        // B.5 VerificationResult<Transaction>.payloadData
        let _: KeyPath<OfTransaction, Data> = \.payloadData
        // B.5 VerificationResult<Transaction>.signatureData
        let _: KeyPath<OfTransaction, Data> = \.signatureData
        // B.5 VerificationResult<Transaction>.signedData
        let _: KeyPath<OfTransaction, Data> = \.signedData
        // B.5 VerificationResult<Transaction>.signature
        let _: KeyPath<OfTransaction, P256.Signing.ECDSASignature> = \.signature
        // B.5 VerificationResult<Transaction>.signedDate
        let _: KeyPath<OfTransaction, Date> = \.signedDate
        // B.5 VerificationResult<Transaction>.deviceVerification
        let _: KeyPath<OfTransaction, Data> = \.deviceVerification
        // B.5 VerificationResult<Transaction>.deviceVerificationNonce
        let _: KeyPath<OfTransaction, UUID> = \.deviceVerificationNonce

        typealias OfRenewalInfo = VerificationResult<Product.SubscriptionInfo.RenewalInfo>
        // B.5 VerificationResult<RenewalInfo>.jwsRepresentation
        let _: KeyPath<OfRenewalInfo, String> = \.jwsRepresentation
        // B.5 VerificationResult<RenewalInfo>.headerData
        let _: KeyPath<OfRenewalInfo, Data> = \.headerData
        // B.5 VerificationResult<RenewalInfo>.payloadData
        let _: KeyPath<OfRenewalInfo, Data> = \.payloadData
        // B.5 VerificationResult<RenewalInfo>.signatureData
        let _: KeyPath<OfRenewalInfo, Data> = \.signatureData
        // B.5 VerificationResult<RenewalInfo>.signedData
        let _: KeyPath<OfRenewalInfo, Data> = \.signedData
        // B.5 VerificationResult<RenewalInfo>.signature
        let _: KeyPath<OfRenewalInfo, P256.Signing.ECDSASignature> = \.signature
        // B.5 VerificationResult<RenewalInfo>.signedDate
        let _: KeyPath<OfRenewalInfo, Date> = \.signedDate
        // B.5 VerificationResult<RenewalInfo>.deviceVerification
        let _: KeyPath<OfRenewalInfo, Data> = \.deviceVerification
        // B.5 VerificationResult<RenewalInfo>.deviceVerificationNonce
        let _: KeyPath<OfRenewalInfo, UUID> = \.deviceVerificationNonce

        typealias OfAppTransaction = VerificationResult<AppTransaction>
        // B.5 VerificationResult<AppTransaction>.jwsRepresentation
        let _: KeyPath<OfAppTransaction, String> = \.jwsRepresentation
        // B.5 VerificationResult<AppTransaction>.headerData
        let _: KeyPath<OfAppTransaction, Data> = \.headerData
        // B.5 VerificationResult<AppTransaction>.payloadData
        let _: KeyPath<OfAppTransaction, Data> = \.payloadData
        // B.5 VerificationResult<AppTransaction>.signatureData
        let _: KeyPath<OfAppTransaction, Data> = \.signatureData
        // B.5 VerificationResult<AppTransaction>.signedData
        let _: KeyPath<OfAppTransaction, Data> = \.signedData
        // B.5 VerificationResult<AppTransaction>.signature
        let _: KeyPath<OfAppTransaction, P256.Signing.ECDSASignature> = \.signature
        // B.5 VerificationResult<AppTransaction>.signedDate
        let _: KeyPath<OfAppTransaction, Date> = \.signedDate
        // B.5 VerificationResult<AppTransaction>.deviceVerification
        let _: KeyPath<OfAppTransaction, Data> = \.deviceVerification
        // B.5 VerificationResult<AppTransaction>.deviceVerificationNonce
        let _: KeyPath<OfAppTransaction, UUID> = \.deviceVerificationNonce
    }
}
