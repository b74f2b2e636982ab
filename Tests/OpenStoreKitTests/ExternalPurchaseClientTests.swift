import AppStoreEngine
import AppStoreFormats
import Foundation
import OpenStoreKit
import OpenStoreKitTest
import Testing

/// StoreKit's External Purchase APIs on a session's store, in process and (through the symlink in
/// OpenStoreKitHTTPTests) over the device protocol: the app gets a real token from the store, and the store, and so the
/// app's server, knows it.
@Suite("External purchases from the app")
struct ExternalPurchaseClientTests {
    func makeSession(storefront: String) throws -> SKTestSession {
        let session = try SKTestSession(contentsOf: demoConfiguration, scope: .isolated, clock: VirtualClock(start: testStart), transport: sessionTransport)
        session.disableDialogs = true
        session.storefront = storefront
        return session
    }

    /// The case of the `StoreKitError` `body` throws; `nil` when it throws none or another error.
    static func storeKitError(_ body: () async throws -> Void) async -> String? {
        do {
            try await body()
            return nil
        } catch let error as StoreKitError {
            return String(describing: error)
        } catch {
            return nil
        }
    }

    @Test("ExternalPurchaseCustomLink.token(for:) answers the store's active token of the type, Base64URL JSON with SANDBOX_ id; the store owes CREATED to the app's server")
    func customLinkToken() async throws {
        let session = try makeSession(storefront: "FRA")
        let (first, again, acquisition) = try await session.run {
            #expect(await ExternalPurchaseCustomLink.isEligible)
            let first = try #require(try await ExternalPurchaseCustomLink.token(for: "SERVICES"))
            let again = try #require(try await ExternalPurchaseCustomLink.token(for: "SERVICES"))
            let acquisition = try #require(try await ExternalPurchaseCustomLink.token(for: "ACQUISITION"))
            #expect(await Self.storeKitError { _ = try await ExternalPurchaseCustomLink.token(for: "LINK_OUT") } == "unsupported")
            return (first, again, acquisition)
        }
        #expect(first == again, "the active token")
        let token = try ExternalPurchaseToken(encodedValue: first.value)
        let id = try #require(token.externalPurchaseId)
        #expect(id.hasPrefix("SANDBOX_") && token.tokenType == "SERVICES" && token.bundleId == session.environment.bundleID)
        #expect(token.tokenCreationDate == testStart && token.tokenExpirationDate == testStart.addingTimeInterval(3_600))
        #expect(try ExternalPurchaseToken(encodedValue: acquisition.value).tokenType == "ACQUISITION")

        let stored = try await session.engine.externalPurchaseToken(id: id)
        #expect(stored?.accountID == session.environment.accountID)
        let created = try await session.engine.notifications().filter { $0.type == .externalPurchaseToken }
        #expect(created.map(\.summary) == ["EXTERNAL_PURCHASE_TOKEN/CREATED", "EXTERNAL_PURCHASE_TOKEN/CREATED"])
    }

    @Test("Outside the European Union the custom link API is not eligible and token(for:) throws notAvailableInStorefront")
    func notEligibleOutsideTheEU() async throws {
        let session = try makeSession(storefront: "USA")
        await session.run {
            #expect(await ExternalPurchaseCustomLink.isEligible == false)
            #expect(await ExternalPurchase.canPresent == false)
            #expect(await Self.storeKitError { _ = try await ExternalPurchaseCustomLink.token(for: "SERVICES") } == "notAvailableInStorefront")
            #expect(await Self.storeKitError { _ = try await ExternalPurchase.presentNoticeSheet() } == "notAvailableInStorefront")
        }
        #expect(try await session.engine.notifications().isEmpty)
    }

    @Test("ExternalPurchase.presentNoticeSheet() continues with a new token each time; unreported, the store owes UNREPORTED 10 days later")
    func noticeSheet() async throws {
        let session = try makeSession(storefront: "KOR")
        let results = try await session.run {
            #expect(await ExternalPurchase.canPresent)
            return [try await ExternalPurchase.presentNoticeSheet(), try await ExternalPurchase.presentNoticeSheet()]
        }
        let ids = try results.map { result -> String in
            guard case .continuedWithExternalPurchaseToken(let value) = result else { throw StoreKitError.unknown }
            let token = try ExternalPurchaseToken(encodedValue: value)
            #expect(token.tokenType == nil && token.tokenExpirationDate == nil)
            return try #require(token.externalPurchaseId)
        }
        #expect(Set(ids).count == 2, "a new token each time")
        try await session.advanceTime(by: 10 * 86_400)
        let unreported = try await session.engine.notifications().filter { $0.type == .externalPurchaseToken }
        #expect(unreported.map(\.summary) == ["EXTERNAL_PURCHASE_TOKEN/UNREPORTED", "EXTERNAL_PURCHASE_TOKEN/UNREPORTED"])
        #expect(Set(unreported.compactMap(\.externalPurchaseToken?.id)) == Set(ids))
    }

    @Test("ExternalPurchaseCustomLink.showNotice(type:) continues for an eligible app and records the notice; outside the EU it throws notAvailableInStorefront")
    func customLinkNotice() async throws {
        let session = try makeSession(storefront: "DEU")
        let result = try await session.run { try await ExternalPurchaseCustomLink.showNotice(type: .withinApp) }
        #expect(result == .continued)
        #expect(session.externalPurchaseNoticesShown == [.withinApp])
        #expect(try await session.engine.notifications().isEmpty, "the notice issues no token")

        session.storefront = "USA"
        let refused = await session.run { await Self.storeKitError { _ = try await ExternalPurchaseCustomLink.showNotice(type: .browser) } }
        #expect(refused == "notAvailableInStorefront")
        #expect(session.externalPurchaseNoticesShown == [.withinApp])
    }

    @Test("ExternalPurchaseLink opens the storefront's configured link: canOpen, open(), eligibleURLs, open(url:); each opening issues a token the store owes UNREPORTED for")
    func linkOut() async throws {
        let session = try makeSession(storefront: "NLD")
        let single = try #require(URL(string: "https://example.com/nl/buy"))
        let multi = [try #require(URL(string: "https://example.com/nl/a")), try #require(URL(string: "https://example.com/nl/b"))]
        let elsewhere = try #require(URL(string: "https://example.com/fr"))
        session.externalPurchaseLink = ["nl": single, "fr": elsewhere]
        session.externalPurchaseMultiLink = ["nl": multi]
        try await session.run {
            #expect(await ExternalPurchaseLink.canOpen)
            try await ExternalPurchaseLink.open()
            #expect(await ExternalPurchaseLink.eligibleURLs == multi)
            try await ExternalPurchaseLink.open(url: multi[1])
            #expect(await Self.storeKitError { try await ExternalPurchaseLink.open(url: elsewhere) } == "notAvailableInStorefront",
                    "another storefront's link is not eligible here")
        }
        #expect(session.externalPurchaseLinksOpened == [single, multi[1]])
        try await session.advanceTime(by: 10 * 86_400)
        let unreported = try await session.engine.notifications().filter { $0.type == .externalPurchaseToken }
        #expect(unreported.map(\.summary) == ["EXTERNAL_PURCHASE_TOKEN/UNREPORTED", "EXTERNAL_PURCHASE_TOKEN/UNREPORTED"])

        session.storefront = "KOR"
        await session.run {
            #expect(await ExternalPurchaseLink.canOpen == false, "no link-out in South Korea")
            #expect(await ExternalPurchaseLink.eligibleURLs == nil)
            #expect(await Self.storeKitError { try await ExternalPurchaseLink.open() } == "notAvailableInStorefront")
        }
        session.storefront = "FRA"
        session.externalPurchaseMultiLink = [:]
        await session.run {
            #expect(await ExternalPurchaseLink.canOpen)
            #expect(await ExternalPurchaseLink.eligibleURLs == nil, "no multi-link configured for France")
        }
        #expect(session.externalPurchaseLinksOpened == [single, multi[1]])
    }
}

