// B.14 StoreKit 2's External Purchase API: ExternalPurchase (iOS 17.4+), ExternalPurchaseLink (iOS 15.4+; eligibleURLs
// and open(url:) iOS 17.5+) and ExternalPurchaseCustomLink (iOS 18.1+). api-surface.md does not list them, so the
// declarations below are Apple's documentation pages, each named in the comment before its check: "StoreKit >
// ExternalPurchase" (canPresent, presentNoticeSheet(), NoticeResult), "StoreKit > ExternalPurchaseLink" (canOpen,
// open(), eligibleURLs, open(url:)) and "StoreKit > ExternalPurchaseCustomLink" (isEligible, token(for:), Token,
// showNotice(type:), NoticeType, NoticeResult). The iOS 27.2 beta members (TokenType, ExternalPurchaseType) are not
// pinned.
import Foundation
import OpenStoreKit
import Testing

/// Names every case: a case added to or removed from `ExternalPurchase.NoticeResult` breaks this `switch`.
private func name(_ result: ExternalPurchase.NoticeResult) -> String {
    switch result {
    case .cancelled: "cancelled"
    case .continuedWithExternalPurchaseToken: "continuedWithExternalPurchaseToken"
    }
}

/// Names every case of `ExternalPurchaseCustomLink.NoticeType`.
private func name(_ type: ExternalPurchaseCustomLink.NoticeType) -> String {
    switch type {
    case .browser: "browser"
    case .withinApp: "withinApp"
    }
}

/// Names every case of `ExternalPurchaseCustomLink.NoticeResult`.
private func name(_ result: ExternalPurchaseCustomLink.NoticeResult) -> String {
    switch result {
    case .cancelled: "cancelled"
    case .continued: "continued"
    }
}

@Suite("B.14 External Purchase has Apple's declarations")
struct ExternalPurchaseConformance {
    @Test("B.14 ExternalPurchase: canPresent, presentNoticeSheet(), NoticeResult")
    func externalPurchase() {
        // B.14 ExternalPurchase — enum: Sendable
        requireSendable(ExternalPurchase.self)
        // B.14 ExternalPurchase.canPresent — static var canPresent: Bool { get async }
        let _: () async -> Bool = { await ExternalPurchase.canPresent }
        // B.14 ExternalPurchase.presentNoticeSheet() — static func presentNoticeSheet() async throws -> ExternalPurchase.NoticeResult
        let _: () async throws -> ExternalPurchase.NoticeResult = ExternalPurchase.presentNoticeSheet
        // B.14 ExternalPurchase.NoticeResult — enum: Equatable, Hashable, Sendable; cancelled,
        // continuedWithExternalPurchaseToken(token:)
        requireHashable(ExternalPurchase.NoticeResult.self)
        requireSendable(ExternalPurchase.NoticeResult.self)
        let _: (String) -> ExternalPurchase.NoticeResult = ExternalPurchase.NoticeResult.continuedWithExternalPurchaseToken(token:)
        #expect([name(ExternalPurchase.NoticeResult.cancelled), name(.continuedWithExternalPurchaseToken(token: ""))] == ["cancelled", "continuedWithExternalPurchaseToken"])
    }

    @Test("B.14 ExternalPurchaseLink: canOpen, open(), eligibleURLs, open(url:)")
    func externalPurchaseLink() {
        // B.14 ExternalPurchaseLink — enum: Sendable
        requireSendable(ExternalPurchaseLink.self)
        // B.14 ExternalPurchaseLink.canOpen — static var canOpen: Bool { get async }
        let _: () async -> Bool = { await ExternalPurchaseLink.canOpen }
        // B.14 ExternalPurchaseLink.open() — static func open() async throws
        let _: () async throws -> Void = ExternalPurchaseLink.open
        // B.14 ExternalPurchaseLink.eligibleURLs (iOS 17.5) — static var eligibleURLs: [URL]? { get async }
        let _: () async -> [URL]? = { await ExternalPurchaseLink.eligibleURLs }
        // B.14 ExternalPurchaseLink.open(url:) (iOS 17.5) — static func open(url: URL) async throws
        let _: (URL) async throws -> Void = ExternalPurchaseLink.open(url:)
    }

    @Test("B.14 ExternalPurchaseCustomLink: isEligible, token(for:), Token, showNotice(type:), NoticeType, NoticeResult")
    func customLink() {
        // B.14 ExternalPurchaseCustomLink — enum: Sendable
        requireSendable(ExternalPurchaseCustomLink.self)
        // B.14 ExternalPurchaseCustomLink.isEligible — static var isEligible: Bool { get async }
        let _: () async -> Bool = { await ExternalPurchaseCustomLink.isEligible }
        // B.14 ExternalPurchaseCustomLink.token(for:) — static func token(for: String) async throws -> ExternalPurchaseCustomLink.Token?
        let _: (String) async throws -> ExternalPurchaseCustomLink.Token? = ExternalPurchaseCustomLink.token(for:)
        // B.14 ExternalPurchaseCustomLink.Token — struct: Equatable, Hashable, Sendable; let value: String
        requireHashable(ExternalPurchaseCustomLink.Token.self)
        requireSendable(ExternalPurchaseCustomLink.Token.self)
        let _: KeyPath<ExternalPurchaseCustomLink.Token, String> = \.value
        // B.14 ExternalPurchaseCustomLink.showNotice(type:) — static func showNotice(type: ExternalPurchaseCustomLink.NoticeType)
        // async throws -> ExternalPurchaseCustomLink.NoticeResult
        let _: (ExternalPurchaseCustomLink.NoticeType) async throws -> ExternalPurchaseCustomLink.NoticeResult = ExternalPurchaseCustomLink.showNotice(type:)
        // B.14 ExternalPurchaseCustomLink.NoticeType — enum: Equatable, Hashable, Sendable; browser, withinApp
        requireHashable(ExternalPurchaseCustomLink.NoticeType.self)
        requireSendable(ExternalPurchaseCustomLink.NoticeType.self)
        #expect([name(ExternalPurchaseCustomLink.NoticeType.browser), name(.withinApp)] == ["browser", "withinApp"])
        // B.14 ExternalPurchaseCustomLink.NoticeResult — enum: Equatable, Hashable, Sendable; cancelled, continued
        requireHashable(ExternalPurchaseCustomLink.NoticeResult.self)
        requireSendable(ExternalPurchaseCustomLink.NoticeResult.self)
        #expect([name(ExternalPurchaseCustomLink.NoticeResult.cancelled), name(.continued)] == ["cancelled", "continued"])
    }
}
