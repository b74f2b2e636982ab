// A.16 SKError, SKError.Code and SKErrorDomain, checked against api-surface.md: each declaration's check follows a
// comment naming it.
import Foundation
import OpenStoreKit
import Testing

/// Names every code: a code added to or removed from `SKError.Code` breaks this `switch`.
private func name(_ code: SKError.Code) -> String {
    switch code {
    case .unknown: "unknown"
    case .clientInvalid: "clientInvalid"
    case .paymentCancelled: "paymentCancelled"
    case .paymentInvalid: "paymentInvalid"
    case .paymentNotAllowed: "paymentNotAllowed"
    case .storeProductNotAvailable: "storeProductNotAvailable"
    case .cloudServicePermissionDenied: "cloudServicePermissionDenied"
    case .cloudServiceNetworkConnectionFailed: "cloudServiceNetworkConnectionFailed"
    case .cloudServiceRevoked: "cloudServiceRevoked"
    case .privacyAcknowledgementRequired: "privacyAcknowledgementRequired"
    case .unauthorizedRequestData: "unauthorizedRequestData"
    case .invalidOfferIdentifier: "invalidOfferIdentifier"
    case .invalidSignature: "invalidSignature"
    case .missingOfferParams: "missingOfferParams"
    case .invalidOfferPrice: "invalidOfferPrice"
    case .overlayCancelled: "overlayCancelled"
    case .overlayInvalidConfiguration: "overlayInvalidConfiguration"
    case .overlayTimeout: "overlayTimeout"
    case .ineligibleForOffer: "ineligibleForOffer"
    case .unsupportedPlatform: "unsupportedPlatform"
    case .overlayPresentedInBackgroundScene: "overlayPresentedInBackgroundScene"
    case .paymentMethodBindingConfigurationRequired: "paymentMethodBindingConfigurationRequired"
    }
}

@Suite("A.16 SKError has Apple's declarations")
struct SKErrorConformance {
    @Test("A.16 SKErrorDomain and the SKError struct: conformances, initializer, domain, code and user info")
    func error() {
        // A.16 SKErrorDomain
        let domain: String = SKErrorDomain
        #expect(domain == "SKErrorDomain", "A.16 SKErrorDomain = \"SKErrorDomain\"")

        // A.16 SKError — struct: CustomNSError, Hashable, Error, Sendable; a bridged stored NSError, as Apple's
        requireCustomNSError(SKError.self)
        requireHashable(SKError.self)
        requireSendable(SKError.self)
        requireBridgedStoredNSError(SKError.self)

        // A.16 SKError.init(_:userInfo:)
        let _: (SKError.Code, [String: Any]) -> SKError = SKError.init(_:userInfo:)
        let _: (SKError.Code) -> SKError = { SKError($0) }

        // A.16 SKError.errorDomain
        let errorDomain: String = SKError.errorDomain
        #expect(errorDomain == SKErrorDomain, "A.16 SKError.errorDomain is SKErrorDomain")

        // A.16 SKError.code
        let _: KeyPath<SKError, SKError.Code> = \.code

        // A.16 SKError.errorUserInfo
        let _: KeyPath<SKError, [String: Any]> = \.errorUserInfo
        let error = SKError(.paymentCancelled, userInfo: ["key": "value"])
        #expect(error.errorUserInfo["key"] as? String == "value", "A.16 SKError.errorUserInfo keeps the user info")
        #expect(error.errorCode == 2)
    }

    @Test("A.16 SKError bridges to and from NSError of SKErrorDomain, as on Apple platforms")
    func bridging() throws {
        // A.16 SKError — `NSError as? SKError`
        let nsError = NSError(domain: SKErrorDomain, code: 2, userInfo: ["key": "value"])
        let bridged = try #require(nsError as? SKError, "A.16 an NSError of SKErrorDomain casts to SKError")
        #expect(bridged.code == .paymentCancelled)
        #expect(bridged.errorUserInfo["key"] as? String == "value")
        let thrown: any Error = nsError
        #expect((thrown as? SKError)?.code == .paymentCancelled, "A.16 `any Error` holding an NSError casts to SKError")
        #expect(NSError(domain: NSCocoaErrorDomain, code: 2) as? SKError == nil, "A.16 another domain does not cast")
        do {
            throw nsError
        } catch SKError.paymentCancelled {
            // A `catch` pattern on an SKError code matches the NSError.
        } catch {
            Issue.record("A.16 `catch SKError.paymentCancelled` does not match an NSError of SKErrorDomain, code 2")
        }

        // A.16 SKError — `error as NSError`
        let back = SKError(.storeProductNotAvailable, userInfo: ["key": "value"]) as NSError
        #expect(back.domain == SKErrorDomain && back.code == 5, "A.16 SKError as NSError has SKErrorDomain and the code")
        #expect(back.userInfo["key"] as? String == "value", "A.16 SKError as NSError keeps the user info")
        let existential: any Error = SKError(.paymentInvalid)
        #expect((existential as NSError).domain == SKErrorDomain && (existential as NSError).code == 3)
    }

    @Test("A.16 SKError.Code: Int raw values from SKError.h, every code, Sendable")
    func codes() {
        // A.16 SKError.Code — enum: Int, Sendable, Equatable
        requireRawValue(SKError.Code.self, Int.self)
        requireSendable(SKError.Code.self)
        requireEquatable(SKError.Code.self)
        let _: (Int) -> SKError.Code? = SKError.Code.init(rawValue:)
        #expect(name(.unknown) == "unknown")

        // A.16 SKError.Code.unknown = 0
        #expect(SKError.Code.unknown.rawValue == 0, "A.16 SKError.Code.unknown = 0")
        // A.16 SKError.Code.clientInvalid = 1
        #expect(SKError.Code.clientInvalid.rawValue == 1, "A.16 SKError.Code.clientInvalid = 1")
        // A.16 SKError.Code.paymentCancelled = 2
        #expect(SKError.Code.paymentCancelled.rawValue == 2, "A.16 SKError.Code.paymentCancelled = 2")
        // A.16 SKError.Code.paymentInvalid = 3
        #expect(SKError.Code.paymentInvalid.rawValue == 3, "A.16 SKError.Code.paymentInvalid = 3")
        // A.16 SKError.Code.paymentNotAllowed = 4
        #expect(SKError.Code.paymentNotAllowed.rawValue == 4, "A.16 SKError.Code.paymentNotAllowed = 4")
        // A.16 SKError.Code.storeProductNotAvailable = 5
        #expect(SKError.Code.storeProductNotAvailable.rawValue == 5, "A.16 SKError.Code.storeProductNotAvailable = 5")
        // A.16 SKError.Code.cloudServicePermissionDenied = 6
        #expect(SKError.Code.cloudServicePermissionDenied.rawValue == 6, "A.16 SKError.Code.cloudServicePermissionDenied = 6")
        // A.16 SKError.Code.cloudServiceNetworkConnectionFailed = 7
        #expect(SKError.Code.cloudServiceNetworkConnectionFailed.rawValue == 7, "A.16 SKError.Code.cloudServiceNetworkConnectionFailed = 7")
        // A.16 SKError.Code.cloudServiceRevoked = 8
        #expect(SKError.Code.cloudServiceRevoked.rawValue == 8, "A.16 SKError.Code.cloudServiceRevoked = 8")
        // A.16 SKError.Code.privacyAcknowledgementRequired = 9
        #expect(SKError.Code.privacyAcknowledgementRequired.rawValue == 9, "A.16 SKError.Code.privacyAcknowledgementRequired = 9")
        // A.16 SKError.Code.unauthorizedRequestData = 10
        #expect(SKError.Code.unauthorizedRequestData.rawValue == 10, "A.16 SKError.Code.unauthorizedRequestData = 10")
        // A.16 SKError.Code.invalidOfferIdentifier = 11
        #expect(SKError.Code.invalidOfferIdentifier.rawValue == 11, "A.16 SKError.Code.invalidOfferIdentifier = 11")
        // A.16 SKError.Code.invalidSignature = 12
        #expect(SKError.Code.invalidSignature.rawValue == 12, "A.16 SKError.Code.invalidSignature = 12")
        // A.16 SKError.Code.missingOfferParams = 13
        #expect(SKError.Code.missingOfferParams.rawValue == 13, "A.16 SKError.Code.missingOfferParams = 13")
        // A.16 SKError.Code.invalidOfferPrice = 14
        #expect(SKError.Code.invalidOfferPrice.rawValue == 14, "A.16 SKError.Code.invalidOfferPrice = 14")
        // A.16 SKError.Code.overlayCancelled = 15
        #expect(SKError.Code.overlayCancelled.rawValue == 15, "A.16 SKError.Code.overlayCancelled = 15")
        // A.16 SKError.Code.overlayInvalidConfiguration = 16
        #expect(SKError.Code.overlayInvalidConfiguration.rawValue == 16, "A.16 SKError.Code.overlayInvalidConfiguration = 16")
        // A.16 SKError.Code.overlayTimeout = 17
        #expect(SKError.Code.overlayTimeout.rawValue == 17, "A.16 SKError.Code.overlayTimeout = 17")
        // A.16 SKError.Code.ineligibleForOffer = 18
        #expect(SKError.Code.ineligibleForOffer.rawValue == 18, "A.16 SKError.Code.ineligibleForOffer = 18")
        // A.16 SKError.Code.unsupportedPlatform = 19
        #expect(SKError.Code.unsupportedPlatform.rawValue == 19, "A.16 SKError.Code.unsupportedPlatform = 19")
        // A.16 SKError.Code.overlayPresentedInBackgroundScene = 20
        #expect(SKError.Code.overlayPresentedInBackgroundScene.rawValue == 20, "A.16 SKError.Code.overlayPresentedInBackgroundScene = 20")
        // A.16 SKError.Code.paymentMethodBindingConfigurationRequired = 21
        #expect(SKError.Code.paymentMethodBindingConfigurationRequired.rawValue == 21, "A.16 SKError.Code.paymentMethodBindingConfigurationRequired = 21")
        #expect(SKError.Code(rawValue: 22) == nil, "A.16 SKError.Code has no code 22")
    }

    @Test("A.16 SKError: a static alias per code, as on every bridged error struct")
    func aliases() {
        // A.16 SKError.unknown (static alias)
        #expect(SKError.unknown == SKError.Code.unknown, "A.16 SKError.unknown is SKError.Code.unknown")
        // A.16 SKError.clientInvalid (static alias)
        #expect(SKError.clientInvalid == SKError.Code.clientInvalid, "A.16 SKError.clientInvalid is SKError.Code.clientInvalid")
        // A.16 SKError.paymentCancelled (static alias)
        #expect(SKError.paymentCancelled == SKError.Code.paymentCancelled, "A.16 SKError.paymentCancelled is SKError.Code.paymentCancelled")
        // A.16 SKError.paymentInvalid (static alias)
        #expect(SKError.paymentInvalid == SKError.Code.paymentInvalid, "A.16 SKError.paymentInvalid is SKError.Code.paymentInvalid")
        // A.16 SKError.paymentNotAllowed (static alias)
        #expect(SKError.paymentNotAllowed == SKError.Code.paymentNotAllowed, "A.16 SKError.paymentNotAllowed is SKError.Code.paymentNotAllowed")
        // A.16 SKError.storeProductNotAvailable (static alias)
        #expect(SKError.storeProductNotAvailable == SKError.Code.storeProductNotAvailable, "A.16 SKError.storeProductNotAvailable is SKError.Code.storeProductNotAvailable")
        // A.16 SKError.cloudServicePermissionDenied (static alias)
        #expect(SKError.cloudServicePermissionDenied == SKError.Code.cloudServicePermissionDenied, "A.16 SKError.cloudServicePermissionDenied is SKError.Code.cloudServicePermissionDenied")
        // A.16 SKError.cloudServiceNetworkConnectionFailed (static alias)
        #expect(SKError.cloudServiceNetworkConnectionFailed == SKError.Code.cloudServiceNetworkConnectionFailed, "A.16 SKError.cloudServiceNetworkConnectionFailed is SKError.Code.cloudServiceNetworkConnectionFailed")
        // A.16 SKError.cloudServiceRevoked (static alias)
        #expect(SKError.cloudServiceRevoked == SKError.Code.cloudServiceRevoked, "A.16 SKError.cloudServiceRevoked is SKError.Code.cloudServiceRevoked")
        // A.16 SKError.privacyAcknowledgementRequired (static alias)
        #expect(SKError.privacyAcknowledgementRequired == SKError.Code.privacyAcknowledgementRequired, "A.16 SKError.privacyAcknowledgementRequired is SKError.Code.privacyAcknowledgementRequired")
        // A.16 SKError.unauthorizedRequestData (static alias)
        #expect(SKError.unauthorizedRequestData == SKError.Code.unauthorizedRequestData, "A.16 SKError.unauthorizedRequestData is SKError.Code.unauthorizedRequestData")
        // A.16 SKError.invalidOfferIdentifier (static alias)
        #expect(SKError.invalidOfferIdentifier == SKError.Code.invalidOfferIdentifier, "A.16 SKError.invalidOfferIdentifier is SKError.Code.invalidOfferIdentifier")
        // A.16 SKError.invalidSignature (static alias)
        #expect(SKError.invalidSignature == SKError.Code.invalidSignature, "A.16 SKError.invalidSignature is SKError.Code.invalidSignature")
        // A.16 SKError.missingOfferParams (static alias)
        #expect(SKError.missingOfferParams == SKError.Code.missingOfferParams, "A.16 SKError.missingOfferParams is SKError.Code.missingOfferParams")
        // A.16 SKError.invalidOfferPrice (static alias)
        #expect(SKError.invalidOfferPrice == SKError.Code.invalidOfferPrice, "A.16 SKError.invalidOfferPrice is SKError.Code.invalidOfferPrice")
        // A.16 SKError.overlayCancelled (static alias)
        #expect(SKError.overlayCancelled == SKError.Code.overlayCancelled, "A.16 SKError.overlayCancelled is SKError.Code.overlayCancelled")
        // A.16 SKError.overlayInvalidConfiguration (static alias)
        #expect(SKError.overlayInvalidConfiguration == SKError.Code.overlayInvalidConfiguration, "A.16 SKError.overlayInvalidConfiguration is SKError.Code.overlayInvalidConfiguration")
        // A.16 SKError.overlayTimeout (static alias)
        #expect(SKError.overlayTimeout == SKError.Code.overlayTimeout, "A.16 SKError.overlayTimeout is SKError.Code.overlayTimeout")
        // A.16 SKError.ineligibleForOffer (static alias)
        #expect(SKError.ineligibleForOffer == SKError.Code.ineligibleForOffer, "A.16 SKError.ineligibleForOffer is SKError.Code.ineligibleForOffer")
        // A.16 SKError.unsupportedPlatform (static alias)
        #expect(SKError.unsupportedPlatform == SKError.Code.unsupportedPlatform, "A.16 SKError.unsupportedPlatform is SKError.Code.unsupportedPlatform")
        // A.16 SKError.overlayPresentedInBackgroundScene (static alias)
        #expect(SKError.overlayPresentedInBackgroundScene == SKError.Code.overlayPresentedInBackgroundScene, "A.16 SKError.overlayPresentedInBackgroundScene is SKError.Code.overlayPresentedInBackgroundScene")
        // A.16 SKError.paymentMethodBindingConfigurationRequired (static alias)
        #expect(SKError.paymentMethodBindingConfigurationRequired == SKError.Code.paymentMethodBindingConfigurationRequired, "A.16 SKError.paymentMethodBindingConfigurationRequired is SKError.Code.paymentMethodBindingConfigurationRequired")
    }
}
