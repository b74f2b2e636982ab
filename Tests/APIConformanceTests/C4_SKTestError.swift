// C.4 SKTestError, SKTestError.Code and SKTestErrorDomain, checked against api-surface.md: each declaration's check
// follows a comment naming it.
import Foundation
import OpenStoreKit
import OpenStoreKitTest
import Testing

/// Names every code: a code added to or removed from `SKTestError.Code` breaks this `switch`.
private func name(_ code: SKTestError.Code) -> String {
    switch code {
    case .serviceUnavailable: "serviceUnavailable"
    case .invalidProductIdentifier: "invalidProductIdentifier"
    case .invalidProductType: "invalidProductType"
    case .invalidURL: "invalidURL"
    case .fileNotFound: "fileNotFound"
    case .noSubscriptionFound: "noSubscriptionFound"
    case .noTransactionFound: "noTransactionFound"
    case .invalidAction: "invalidAction"
    }
}

@Suite("C.4 SKTestError has Apple's declarations")
struct SKTestErrorConformance {
    @Test("C.4 SKTestErrorDomain and the SKTestError struct: conformances, domain and code")
    func error() {
        // C.4 SKTestErrorDomain
        let domain: String = SKTestErrorDomain
        #expect(domain == "SKTestErrorDomain", "C.4 SKTestErrorDomain = \"SKTestErrorDomain\"")

        // C.4 SKTestError — struct: CustomNSError, Hashable, Error
        requireCustomNSError(SKTestError.self)
        requireHashable(SKTestError.self)

        // C.4 SKTestError.errorDomain
        let errorDomain: String = SKTestError.errorDomain
        #expect(errorDomain == SKTestErrorDomain, "C.4 SKTestError.errorDomain is SKTestErrorDomain")

        // C.4 SKTestError.code — every bridged error struct's
        let _: KeyPath<SKTestError, SKTestError.Code> = \.code
        let nsError = SKTestError(.noTransactionFound) as NSError
        #expect(nsError.domain == SKTestErrorDomain && nsError.code == 6, "C.4 SKTestError as NSError has its domain and code")
        // C.4 SKTestError — `NSError as? SKTestError`, as Foundation bridges it on Apple platforms
        let fromNSError = NSError(domain: SKTestErrorDomain, code: 6) as? SKTestError
        #expect(fromNSError?.code == .noTransactionFound, "C.4 an NSError of SKTestErrorDomain casts to SKTestError")
        #expect(NSError(domain: SKErrorDomain, code: 6) as? SKTestError == nil, "C.4 another domain does not cast")
    }

    @Test("C.4 SKTestError.Code: Int raw values from SKTestError.h, every code")
    func codes() {
        // C.4 SKTestError.Code — enum: Int
        requireRawValue(SKTestError.Code.self, Int.self)
        let _: (Int) -> SKTestError.Code? = SKTestError.Code.init(rawValue:)
        #expect(name(.invalidAction) == "invalidAction")

        // C.4 SKTestError.Code.serviceUnavailable = 0
        #expect(SKTestError.Code.serviceUnavailable.rawValue == 0, "C.4 SKTestError.Code.serviceUnavailable = 0")
        // C.4 SKTestError.Code.invalidProductIdentifier = 1
        #expect(SKTestError.Code.invalidProductIdentifier.rawValue == 1, "C.4 SKTestError.Code.invalidProductIdentifier = 1")
        // C.4 SKTestError.Code.invalidProductType = 2
        #expect(SKTestError.Code.invalidProductType.rawValue == 2, "C.4 SKTestError.Code.invalidProductType = 2")
        // C.4 SKTestError.Code.invalidURL = 3
        #expect(SKTestError.Code.invalidURL.rawValue == 3, "C.4 SKTestError.Code.invalidURL = 3")
        // C.4 SKTestError.Code.fileNotFound = 4
        #expect(SKTestError.Code.fileNotFound.rawValue == 4, "C.4 SKTestError.Code.fileNotFound = 4")
        // C.4 SKTestError.Code.noSubscriptionFound = 5
        #expect(SKTestError.Code.noSubscriptionFound.rawValue == 5, "C.4 SKTestError.Code.noSubscriptionFound = 5")
        // C.4 SKTestError.Code.noTransactionFound = 6
        #expect(SKTestError.Code.noTransactionFound.rawValue == 6, "C.4 SKTestError.Code.noTransactionFound = 6")
        // C.4 SKTestError.Code.invalidAction = 7
        #expect(SKTestError.Code.invalidAction.rawValue == 7, "C.4 SKTestError.Code.invalidAction = 7")
        #expect(SKTestError.Code(rawValue: 8) == nil, "C.4 SKTestError.Code has no code 8")
    }

    @Test("C.4 SKTestError: a static alias per code")
    func aliases() {
        // C.4 SKTestError.serviceUnavailable (static alias)
        #expect(SKTestError.serviceUnavailable == SKTestError.Code.serviceUnavailable, "C.4 SKTestError.serviceUnavailable is SKTestError.Code.serviceUnavailable")
        // C.4 SKTestError.invalidProductIdentifier (static alias)
        #expect(SKTestError.invalidProductIdentifier == SKTestError.Code.invalidProductIdentifier, "C.4 SKTestError.invalidProductIdentifier is SKTestError.Code.invalidProductIdentifier")
        // C.4 SKTestError.invalidProductType (static alias)
        #expect(SKTestError.invalidProductType == SKTestError.Code.invalidProductType, "C.4 SKTestError.invalidProductType is SKTestError.Code.invalidProductType")
        // C.4 SKTestError.invalidURL (static alias)
        #expect(SKTestError.invalidURL == SKTestError.Code.invalidURL, "C.4 SKTestError.invalidURL is SKTestError.Code.invalidURL")
        // C.4 SKTestError.fileNotFound (static alias)
        #expect(SKTestError.fileNotFound == SKTestError.Code.fileNotFound, "C.4 SKTestError.fileNotFound is SKTestError.Code.fileNotFound")
        // C.4 SKTestError.noSubscriptionFound (static alias)
        #expect(SKTestError.noSubscriptionFound == SKTestError.Code.noSubscriptionFound, "C.4 SKTestError.noSubscriptionFound is SKTestError.Code.noSubscriptionFound")
        // C.4 SKTestError.noTransactionFound (static alias)
        #expect(SKTestError.noTransactionFound == SKTestError.Code.noTransactionFound, "C.4 SKTestError.noTransactionFound is SKTestError.Code.noTransactionFound")
        // C.4 SKTestError.invalidAction (static alias)
        #expect(SKTestError.invalidAction == SKTestError.Code.invalidAction, "C.4 SKTestError.invalidAction is SKTestError.Code.invalidAction")
    }
}
