import AppStoreEngine
import Foundation
import OpenStoreKit
import OpenStoreKitTest
import Testing

@Suite("Hosted content downloads and promotion overrides")
struct DeviceFeatureTests {
    /// A folder of hosted content: premium has a package of two files spanning several chunks.
    static func makeHostedContent() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hosted-\(UUID().uuidString)", isDirectory: true)
        let package = folder.appendingPathComponent(Demo.premium, isDirectory: true)
        try FileManager.default.createDirectory(at: package.appendingPathComponent("Contents/Levels"), withIntermediateDirectories: true)
        let plist = try PropertyListSerialization.data(fromPropertyList: ["ContentVersion": "2.1"], format: .xml, options: 0)
        try plist.write(to: package.appendingPathComponent("ContentInfo.plist"))
        let level = Data((0..<200_000).map { UInt8(truncatingIfNeeded: $0) })
        try level.write(to: package.appendingPathComponent("Contents/Levels/level1.dat"))
        try Data("hello".utf8).write(to: package.appendingPathComponent("Contents/readme.txt"))
        return folder
    }

    /// A harness whose store hosts premium's content, after premium was bought: the purchase and its download.
    func purchasedPremium() async throws -> (Harness, TransactionView, SKDownload) {
        let harness = try Harness(hostedContent: try Self.makeHostedContent())
        try await harness.buy(Demo.premium)
        let purchased = try await harness.spy.waitForTransaction(Demo.premium, .purchased)
        return (harness, purchased, try #require(try harness.transaction(purchased).downloads.first))
    }

    @Test("A product with hosted content is downloadable, and its purchase downloads the package with progress")
    func downloadFinishes() async throws {
        let hosted = try Self.makeHostedContent()
        defer { try? FileManager.default.removeItem(at: hosted) }
        let harness = try Harness(hostedContent: hosted)
        let products = try await harness.products(Demo.premium, Demo.coins)
        let premium = try #require(products[Demo.premium])
        #expect(premium.isDownloadable)
        #expect(premium.downloadContentVersion == "2.1")
        #expect(premium.contentVersion == "2.1")
        #expect(premium.downloadContentLengths.first?.int64Value ?? 0 > 200_000)
        #expect(products[Demo.coins]?.isDownloadable == false)

        harness.queue.add(SKPayment(product: premium))
        let purchased = try await harness.spy.waitForTransaction(Demo.premium, .purchased)
        let transaction = try harness.transaction(purchased)
        let download = try #require(transaction.downloads.first)
        #expect(download.state == .waiting)
        #expect(download.contentIdentifier == Demo.premium)
        #expect(download.transaction === transaction)
        harness.queue.start(transaction.downloads)
        let finished = try await harness.spy.wait(for: "download finished") { log in
            log.lazy.compactMap { event -> DownloadView? in
                if case .downloads(let views) = event { return views.first { $0.state == .finished } }
                return nil
            }.first
        }
        #expect(finished.progress == 1)
        let contentURL = try #require(download.contentURL)
        #expect(try Data(contentsOf: contentURL.appendingPathComponent("Contents/Levels/level1.dat")).count == 200_000)
        #expect(try String(contentsOf: contentURL.appendingPathComponent("Contents/readme.txt"), encoding: .utf8) == "hello")
        // One update per chunk: the plist, four chunks of the level, the readme.
        let progresses = harness.spy.log.compactMap { event -> Float? in
            if case .downloads(let views) = event { return views.first?.progress }
            return nil
        }
        #expect(progresses.count == 6)
        #expect(progresses == progresses.sorted())
    }

    @Test("A download paused from the observer stops after the chunk it reported and completes once resumed")
    func pauseAndResume() async throws {
        let (harness, _, download) = try await purchasedPremium()
        defer { harness.removeHostedContent() }
        let pausedOnce = Locked(false)
        harness.spy.onDownloads { queue, downloads in
            guard downloads.first?.state == .active, !pausedOnce.withLock({ paused in defer { paused = true }; return paused }) else { return }
            queue.pause(downloads)
        }
        harness.queue.start([download])
        let paused = try await harness.spy.wait(for: "paused") { log in
            log.lazy.compactMap { event -> DownloadView? in
                if case .downloads(let views) = event { return views.first { $0.state == .paused } }
                return nil
            }.first
        }
        // Paused after the first chunk: the package's small ContentInfo.plist.
        #expect(paused.progress > 0 && paused.progress < 0.01)
        #expect(download.timeRemaining == SKDownloadTimeRemainingUnknown)
        let updatesWhilePaused = harness.spy.log.count
        harness.queue.resume([download])
        try await harness.spy.wait(for: "finished") { log in
            log.contains { if case .downloads(let views) = $0 { views.contains { $0.state == .finished } } else { false } } ? true : nil
        }
        #expect(harness.spy.log.count > updatesWhilePaused + 1)
        #expect(download.contentURL != nil)
    }

    @Test("A download cancelled from the observer stops and deletes what it copied")
    func cancel() async throws {
        let (harness, purchased, download) = try await purchasedPremium()
        defer { harness.removeHostedContent() }
        harness.spy.onDownloads { queue, downloads in
            if downloads.first?.state == .active { queue.cancel(downloads) }
        }
        harness.queue.start([download])
        try await harness.spy.wait(for: "cancelled") { log in
            log.contains { if case .downloads(let views) = $0 { views.contains { $0.state == .cancelled } } else { false } } ? true : nil
        }
        // The spy may record the cancelled state while the download queue is still deleting the copy.
        await harness.queue.waitUntilIdle()
        #expect(download.contentURL == nil)
        #expect(download.progress < 0.01)
        let identifier = try #require(purchased.identifier)
        let directory = harness.session.environment.appDirectory.appendingPathComponent("Downloads/\(identifier)/\(Demo.premium)")
        #expect(!FileManager.default.fileExists(atPath: directory.path))
    }

    @Test("Finishing a transaction cancels its unfinished downloads, which can no longer start")
    func finishCancelsDownloads() async throws {
        let (harness, purchased, download) = try await purchasedPremium()
        defer { harness.removeHostedContent() }
        let transaction = try harness.transaction(purchased)
        harness.queue.finishTransaction(transaction)
        try await harness.spy.wait(for: "cancelled") { log in
            log.contains { if case .downloads(let views) = $0 { views.contains { $0.state == .cancelled } } else { false } } ? true : nil
        }
        #expect(transaction.downloads.isEmpty)
        #expect(download.state == .cancelled)
    }

    @Test("Promotion visibility and order overrides are kept per device and app")
    func promotionOverrides() async throws {
        let harness = try Harness(attach: false)
        let controller = SKProductStorePromotionController(paymentQueue: harness.queue)
        let products = try await harness.products(Demo.premium, Demo.coins, Demo.darkTheme)
        let premium = try #require(products[Demo.premium]), coins = try #require(products[Demo.coins])
        let theme = try #require(products[Demo.darkTheme])

        #expect(try await controller.promotionVisibility(for: premium) == .default)
        try await controller.update(promotionVisibility: .hide, for: premium)
        #expect(try await controller.promotionVisibility(for: premium) == .hide)
        #expect(try await controller.promotionOrder().isEmpty)
        try await controller.update(promotionOrder: [theme, coins])
        #expect(try await controller.promotionOrder().map(\.productIdentifier) == [Demo.darkTheme, Demo.coins])

        // Another launch of the app on the same device sees the overrides.
        let relaunchedQueue = SKPaymentQueue(environment: harness.session.environment)
        let relaunch = SKProductStorePromotionController(paymentQueue: relaunchedQueue)
        #expect(try await relaunch.promotionVisibility(for: premium) == .hide)
        let fetched = Locked<[String]?>(nil)
        let done = Signal()
        relaunch.fetchStorePromotionOrder { products, error in
            fetched.withLock { $0 = error == nil ? products.map(\.productIdentifier) : nil }
            done.fire()
        }
        try await done.wait(on: relaunchedQueue)
        #expect(fetched.current == [Demo.darkTheme, Demo.coins])

        // Another device does not.
        var otherDevice = harness.session.environment
        otherDevice.deviceID = UUID()
        otherDevice.appDirectory = otherDevice.appDirectory.appendingPathComponent("other-device")
        let elsewhere = SKProductStorePromotionController(paymentQueue: SKPaymentQueue(environment: otherDevice))
        #expect(try await elsewhere.promotionVisibility(for: premium) == .default)

        try await controller.update(promotionOrder: [])
        #expect(try await controller.promotionOrder().isEmpty)
        await #expect(throws: SKError(.storeProductNotAvailable)) {
            final class Unsold: SKProduct, @unchecked Sendable { override var productIdentifier: String { "unsold" } }
            try await controller.update(promotionVisibility: .show, for: Unsold())
        }
    }
}
