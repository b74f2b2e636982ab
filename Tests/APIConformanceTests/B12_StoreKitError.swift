// B.12 StoreKitError, checked against api-surface.md: each declaration's check follows a comment naming it.
import Foundation
import OpenStoreKit
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Names every case: a case added to or removed from `StoreKitError` breaks this `switch`.
private func name(_ error: StoreKitError) -> String {
    switch error {
    case .unknown: "unknown"
    case .userCancelled: "userCancelled"
    case .networkError(let underlying): "networkError(\(underlying.code.rawValue))"
    case .systemError(let underlying): "systemError(\(underlying))"
    case .notAvailableInStorefront: "notAvailableInStorefront"
    case .notEntitled: "notEntitled"
    case .unsupported: "unsupported"
    }
}

@Suite("B.12 StoreKitError has Apple's declarations")
struct StoreKitErrorConformance {
    @Test("B.12 StoreKitError: every case, with Apple's payloads, and its descriptions")
    func storeKitError() {
        // B.12 StoreKitError — enum: Error, LocalizedError, Sendable
        requireLocalizedError(StoreKitError.self)
        requireSendable(StoreKitError.self)
        // B.12 StoreKitError.networkError(_:) — a URLError
        let _: (URLError) -> StoreKitError = StoreKitError.networkError
        // B.12 StoreKitError.systemError(_:) — any Error
        let _: (any Error) -> StoreKitError = StoreKitError.systemError
        // B.12 StoreKitError.unknown, userCancelled, notAvailableInStorefront, notEntitled (iOS 15.4),
        // unsupported (iOS 18.4)
        let errors: [StoreKitError] = [
            .unknown, .userCancelled, .networkError(URLError(.notConnectedToInternet)), .systemError(CocoaError(.fileNoSuchFile)),
            .notAvailableInStorefront, .notEntitled, .unsupported,
        ]
        #expect(Set(errors.map(name)).count == 7)
        // B.12 StoreKitError.errorDescription, failureReason, recoverySuggestion (LocalizedError, iOS 15.4)
        let _: KeyPath<StoreKitError, String?> = \.errorDescription
        let _: KeyPath<StoreKitError, String?> = \.failureReason
        let _: KeyPath<StoreKitError, String?> = \.recoverySuggestion
        #expect(errors.allSatisfy { $0.errorDescription?.isEmpty == false })
    }
}
