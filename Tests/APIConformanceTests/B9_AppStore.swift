// B.9 AppStore, checked against api-surface.md: each declaration's check follows a comment naming it.
import Foundation
import OpenStoreKit
import Testing

@Suite("B.9 AppStore has Apple's declarations")
struct AppStoreConformance {
    @Test("B.9 AppStore: payments, the device's verification identifier, sync and the sheets StoreKit shows")
    @MainActor
    func appStore() {
        // B.9 AppStore — enum, Sendable
        requireSendable(AppStore.self)
        // B.9 AppStore.canMakePayments
        let _: () -> Bool = { AppStore.canMakePayments }
        // B.9 AppStore.deviceVerificationID
        let _: () -> UUID? = { AppStore.deviceVerificationID }
        // B.9 AppStore.sync()
        let _: () async throws -> Void = AppStore.sync
        // B.9 AppStore.showManageSubscriptions(in:) — @MainActor
        let _: @MainActor (UIWindowScene) async throws -> Void = AppStore.showManageSubscriptions(in:)
        // B.9 AppStore.showManageSubscriptions(in:subscriptionGroupID:) (iOS 17) — @MainActor
        let _: @MainActor (UIWindowScene, String) async throws -> Void = AppStore.showManageSubscriptions(in:subscriptionGroupID:)
        // B.9 AppStore.presentOfferCodeRedeemSheet(in:) (iOS 16) — @MainActor
        let _: @MainActor (UIWindowScene) async throws -> Void = AppStore.presentOfferCodeRedeemSheet(in:)
        // B.9 AppStore.presentOfferCodeRedeemSheet(from:options:) (iOS 27, macOS 27) — @MainActor, returns the transaction
        let _: @MainActor (UIViewController, Set<RedeemOption>) async throws -> VerificationResult<Transaction> =
            AppStore.presentOfferCodeRedeemSheet(from:options:)
        let _: @MainActor (NSWindow, Set<RedeemOption>) async throws -> VerificationResult<Transaction> =
            AppStore.presentOfferCodeRedeemSheet(from:options:)
        let _: @MainActor (UIViewController) async throws -> VerificationResult<Transaction> = { try await AppStore.presentOfferCodeRedeemSheet(from: $0) }
        // B.9 AppStore.requestReview(in:) (iOS 16) — @MainActor, neither async nor throwing
        let _: @MainActor (UIWindowScene) -> Void = AppStore.requestReview(in:)
    }

    @Test("B.9 AppStore.Environment and AppStore.Platform: their values and App Store names")
    func environmentAndPlatform() {
        // B.9 AppStore.Environment (iOS 16) — RawRepresentable (String), Hashable, Sendable
        requireRawValue(AppStore.Environment.self, String.self)
        requireHashable(AppStore.Environment.self)
        requireSendable(AppStore.Environment.self)
        // B.9 AppStore.Environment.init(rawValue:)
        let _: (String) -> AppStore.Environment = AppStore.Environment.init(rawValue:)
        // B.9 AppStore.Environment.production
        #expect(AppStore.Environment.production.rawValue == "Production")
        // B.9 AppStore.Environment.sandbox
        #expect(AppStore.Environment.sandbox.rawValue == "Sandbox")
        // B.9 AppStore.Environment.xcode
        #expect(AppStore.Environment.xcode.rawValue == "Xcode")

        // B.9 AppStore.Platform (iOS 18.4) — RawRepresentable (String), Hashable, Sendable
        requireRawValue(AppStore.Platform.self, String.self)
        requireHashable(AppStore.Platform.self)
        requireSendable(AppStore.Platform.self)
        // B.9 AppStore.Platform.init(rawValue:)
        let _: (String) -> AppStore.Platform = AppStore.Platform.init(rawValue:)
        // B.9 AppStore.Platform.iOS, macOS, tvOS, visionOS
        #expect([AppStore.Platform.iOS, .macOS, .tvOS, .visionOS].map(\.rawValue) == ["iOS", "macOS", "tvOS", "visionOS"])
    }
}
