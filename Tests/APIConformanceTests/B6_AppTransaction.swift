// B.6 AppTransaction, checked against api-surface.md: each declaration's check follows a comment naming it.
import Foundation
import OpenStoreKit
import Testing

@Suite("B.6 AppTransaction has Apple's declarations")
struct AppTransactionConformance {
    @Test("B.6 AppTransaction: shared, refresh and the app's purchase details")
    func appTransaction() {
        // B.6 AppTransaction — struct: Equatable, Hashable, Sendable, CustomDebugStringConvertible
        requireHashable(AppTransaction.self)
        requireSendable(AppTransaction.self)
        requireCustomDebugStringConvertible(AppTransaction.self)
        // B.6 AppTransaction.shared — get async throws
        let _: () async throws -> VerificationResult<AppTransaction> = { try await AppTransaction.shared }
        // B.6 AppTransaction.refresh()
        let _: () async throws -> VerificationResult<AppTransaction> = AppTransaction.refresh
        // B.6 AppTransaction.appID
        let _: KeyPath<AppTransaction, UInt64?> = \.appID
        // B.6 AppTransaction.appVersionID
        let _: KeyPath<AppTransaction, UInt64?> = \.appVersionID
        // B.6 AppTransaction.appVersion
        let _: KeyPath<AppTransaction, String> = \.appVersion
        // B.6 AppTransaction.bundleID
        let _: KeyPath<AppTransaction, String> = \.bundleID
        // B.6 AppTransaction.originalAppVersion
        let _: KeyPath<AppTransaction, String> = \.originalAppVersion
        // B.6 AppTransaction.originalPurchaseDate
        let _: KeyPath<AppTransaction, Date> = \.originalPurchaseDate
        // B.6 AppTransaction.preorderDate
        let _: KeyPath<AppTransaction, Date?> = \.preorderDate
        // B.6 AppTransaction.environment
        let _: KeyPath<AppTransaction, AppStore.Environment> = \.environment
        // B.6 AppTransaction.signedDate
        let _: KeyPath<AppTransaction, Date> = \.signedDate
        // B.6 AppTransaction.deviceVerification
        let _: KeyPath<AppTransaction, Data> = \.deviceVerification
        // B.6 AppTransaction.deviceVerificationNonce
        let _: KeyPath<AppTransaction, UUID> = \.deviceVerificationNonce
        // B.6 AppTransaction.jsonRepresentation
        let _: KeyPath<AppTransaction, Data> = \.jsonRepresentation
        // B.6 AppTransaction.appTransactionID (back-deployed, 18.4 SDK)
        let _: KeyPath<AppTransaction, String> = \.appTransactionID
        // B.6 AppTransaction.originalPlatform (iOS 18.4)
        let _: KeyPath<AppTransaction, AppStore.Platform> = \.originalPlatform
        // B.6 AppTransaction.originalPlatformStringRepresentation (deprecated in iOS 18.4)
        let _: KeyPath<AppTransaction, String> = \.originalPlatformStringRepresentation
        // B.6 AppTransaction.storeType (iOS 27)
        let _: KeyPath<AppTransaction, AppTransaction.StoreType> = \.storeType
        // B.6 AppTransaction.storeTypeStringRepresentation (back-deployed, deprecated in iOS 27)
        let _: KeyPath<AppTransaction, String> = \.storeTypeStringRepresentation
        // B.6 AppTransaction.debugDescription
        let _: KeyPath<AppTransaction, String> = \.debugDescription
        // B.6 AppTransaction.StoreType (iOS 27) — RawRepresentable (String), Hashable, Sendable
        requireRawValue(AppTransaction.StoreType.self, String.self)
        requireSendable(AppTransaction.StoreType.self)
        requireHashable(AppTransaction.StoreType.self)
        let _: (String) -> AppTransaction.StoreType = AppTransaction.StoreType.init(rawValue:)
        // B.6 AppTransaction.StoreType.consumer: the one storeType Apple documents
        #expect(AppTransaction.StoreType.consumer.rawValue == "CONSUMER")
    }
}
