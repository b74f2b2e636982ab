import AppStoreEngine
import Foundation

/// What the Retention Messaging API keeps for each app of one store: uploaded images and messages with their review
/// states, default messages by product and locale, the Get Retention Message URL, and performance tests.
///
/// The content is a row of the tenant's storage per app (the `bid` of the request's token; `RetentionMessagingContent`),
/// read and changed through the store's engine in one storage transaction per request, so every server on the storage
/// answers the same and a restart or a tenant reset keeps it. Performance tests are runs, not content: they stay in
/// the memory of the server that runs them. Uploads are reviewed at once and come out `APPROVED`, as Apple's sandbox
/// approves them without App Review; ``setImageState(_:of:bundleID:)`` and ``setMessageState(_:of:bundleID:)`` put
/// them in another state, to see what a backend does with a pending or rejected message.
actor RetentionMessagingStore {
    /// Apple's review states of images and messages.
    enum ReviewState: String, Sendable, CaseIterable {
        case pending = "PENDING"
        case approved = "APPROVED"
        case rejected = "REJECTED"
    }

    /// Apple's image sizes: a full-size image above the message body, or a bullet-point icon.
    enum ImageSize: String, Sendable {
        case fullSize = "FULL_SIZE"
        case bulletPoint = "BULLET_POINT"
    }

    /// An uploaded image. The bytes are checked and dropped: nothing shows them.
    struct Image: Sendable {
        var id: UUID
        var size: ImageSize
        var state: ReviewState
    }

    /// An uploaded message and the images it shows: its own, then its bullet points'.
    struct Message: Sendable {
        var id: UUID
        var imageIDs: [UUID]
        var state: ReviewState
    }

    /// A message as Upload Message describes it, checked by ``uploadMessage(_:bundleID:)``.
    struct MessageUpload: Sendable {
        struct BulletPoint: Sendable {
            var text: String
            var imageID: UUID
            var altText: String
        }

        var id: UUID
        var header: String
        var body: String
        var image: (id: UUID, altText: String)?
        var headerAboveImage: Bool
        var bulletPoints: [BulletPoint]
    }

    /// Apple's limit on images per app.
    static let maximumImages = 2_000
    /// The limit on messages per app. Apple documents that there is one but not its value here; the store allows as
    /// many messages as images.
    static let maximumMessages = 2_000
    /// Apple's length limits, counted in Unicode scalars as Apple's own clients count them.
    static let maximumHeader = 66, maximumBody = 144, maximumAltText = 150, maximumBulletPoints = 5, maximumBulletPointText = 66

    /// One app's performance tests on this server.
    private struct PerformanceTests {
        var runs: [UUID: PerformanceTestRun] = [:]
        var running: UUID?
    }

    /// The store whose storage keeps the content.
    private let engine: StoreEngine
    private var performanceTests: [String: PerformanceTests] = [:]
    private var runs: [UUID: Task<Void, Never>] = [:]

    /// Creates the Retention Messaging state of `engine`'s tenant.
    init(engine: StoreEngine) {
        self.engine = engine
    }

    /// Changes an app's stored content with `change`, which refuses with a ``ServerAPIError`` (leaving it as it was) or
    /// returns `nil`.
    private func update(
        _ bundleID: String, _ change: @escaping @Sendable (inout RetentionMessagingContent) -> ServerAPIError?
    ) async throws {
        if let refusal = try await engine.updateRetentionMessaging(bundleID: bundleID, change) { throw refusal }
    }

    /// An app's stored content.
    private func content(_ bundleID: String) async throws -> RetentionMessagingContent {
        try await engine.retentionMessaging(bundleID: bundleID)
    }

    // MARK: Images

    /// Adds an image in `APPROVED` state.
    ///
    /// - Throws: ``ServerAPIError`` 409 `imageAlreadyExists` for a known identifier, 403 `maximumImages` past 2000.
    func addImage(_ id: UUID, size: ImageSize, bundleID: String) async throws {
        try await update(bundleID) { app in
            guard !app.images.contains(where: { $0.id == id }) else { return .imageAlreadyExists }
            guard app.images.count < Self.maximumImages else { return .maximumImages }
            app.images.append(.init(id: id, size: size.rawValue, state: ReviewState.approved.rawValue))
            return nil
        }
    }

    /// Deletes an image no message shows.
    ///
    /// - Throws: ``ServerAPIError`` 404 `imageNotFound`, 403 `imageInUse` while a message shows it.
    func deleteImage(_ id: UUID, bundleID: String) async throws {
        try await update(bundleID) { app in
            guard let index = app.images.firstIndex(where: { $0.id == id }) else { return .imageNotFound }
            guard !app.messages.contains(where: { $0.imageIDs.contains(id) }) else { return .imageInUse }
            app.images.remove(at: index)
            return nil
        }
    }

    /// The app's images, in upload order.
    func images(bundleID: String) async throws -> [Image] {
        try await content(bundleID).images.map { image in
            Image(id: image.id, size: ImageSize(rawValue: image.size) ?? .fullSize, state: ReviewState(rawValue: image.state) ?? .pending)
        }
    }

    /// Puts an image in a review state; `false` when the app has no such image.
    func setImageState(_ state: ReviewState, of id: UUID, bundleID: String) async throws -> Bool {
        try await engine.updateRetentionMessaging(bundleID: bundleID) { app in
            guard let index = app.images.firstIndex(where: { $0.id == id }) else { return false }
            app.images[index].state = state.rawValue
            return true
        }
    }

    // MARK: Messages

    /// Adds a message in `APPROVED` state, checked as Apple checks it: lengths, bullet points, and images that exist and
    /// are the right size for where they appear.
    ///
    /// - Throws: ``ServerAPIError``: 409 `messageAlreadyExists`; 400 `headerTooLong`, `bodyTooLong`, `altTextTooLong`,
    ///   `tooManyBulletPoints`, `bulletPointTextTooLong`, `aboveImageRequiresImage`, `badImageSize`; 404
    ///   `imageNotFound`; 403 `maximumMessages`.
    func uploadMessage(_ upload: MessageUpload, bundleID: String) async throws {
        try await update(bundleID) { app in
            do throws(ServerAPIError) {
                try Self.add(upload, to: &app)
                return nil
            } catch {
                return error
            }
        }
    }

    /// Adds a message to an app's content, checked.
    private static func add(_ upload: MessageUpload, to app: inout RetentionMessagingContent) throws(ServerAPIError) {
        guard !app.messages.contains(where: { $0.id == upload.id }) else { throw .messageAlreadyExists }
        guard upload.header.unicodeScalars.count <= Self.maximumHeader else { throw .headerTooLong }
        guard upload.body.unicodeScalars.count <= Self.maximumBody else { throw .bodyTooLong }
        guard upload.bulletPoints.count <= Self.maximumBulletPoints else { throw .tooManyBulletPoints }
        var imageIDs: [UUID] = []
        if let image = upload.image {
            guard image.altText.unicodeScalars.count <= Self.maximumAltText else { throw .altTextTooLong }
            guard let known = app.images.first(where: { $0.id == image.id }) else { throw .imageNotFound }
            guard known.size == ImageSize.fullSize.rawValue else { throw .badImageSize }
            imageIDs.append(image.id)
        } else if upload.headerAboveImage {
            throw .aboveImageRequiresImage
        }
        for point in upload.bulletPoints {
            guard point.text.unicodeScalars.count <= Self.maximumBulletPointText else { throw .bulletPointTextTooLong }
            guard point.altText.unicodeScalars.count <= Self.maximumAltText else { throw .altTextTooLong }
            guard let known = app.images.first(where: { $0.id == point.imageID }) else { throw .imageNotFound }
            guard known.size == ImageSize.bulletPoint.rawValue else { throw .badImageSize }
            imageIDs.append(point.imageID)
        }
        guard app.messages.count < Self.maximumMessages else { throw .maximumMessages }
        app.messages.append(.init(id: upload.id, imageIDs: imageIDs, state: ReviewState.approved.rawValue))
    }

    /// Deletes a message, and the default-message configurations that named it (Apple's documentation says nothing of
    /// them; a default that shows a deleted message would show nothing).
    ///
    /// - Throws: ``ServerAPIError`` 404 `messageNotFound`.
    func deleteMessage(_ id: UUID, bundleID: String) async throws {
        try await update(bundleID) { app in
            guard let index = app.messages.firstIndex(where: { $0.id == id }) else { return .messageNotFound }
            app.messages.remove(at: index)
            app.defaults.removeAll { $0.messageID == id }
            return nil
        }
    }

    /// The app's messages, in upload order.
    func messages(bundleID: String) async throws -> [Message] {
        try await content(bundleID).messages.map { message in
            Message(id: message.id, imageIDs: message.imageIDs, state: ReviewState(rawValue: message.state) ?? .pending)
        }
    }

    /// Puts a message in a review state; `false` when the app has no such message.
    func setMessageState(_ state: ReviewState, of id: UUID, bundleID: String) async throws -> Bool {
        try await engine.updateRetentionMessaging(bundleID: bundleID) { app in
            guard let index = app.messages.firstIndex(where: { $0.id == id }) else { return false }
            app.messages[index].state = state.rawValue
            return true
        }
    }

    // MARK: Default messages

    /// Makes a message the default for a product in a locale, replacing any other.
    ///
    /// - Throws: ``ServerAPIError`` 404 `messageNotFound`, 403 `messageNotApproved` or `imageNotApproved` when the
    ///   message or an image it shows is not `APPROVED`.
    func configureDefault(_ messageID: UUID, productID: String, locale: String, bundleID: String) async throws {
        let approved = ReviewState.approved.rawValue
        try await update(bundleID) { app in
            guard let message = app.messages.first(where: { $0.id == messageID }) else { return .messageNotFound }
            guard message.state == approved else { return .messageNotApproved }
            for imageID in message.imageIDs where app.images.first(where: { $0.id == imageID })?.state != approved {
                return .imageNotApproved
            }
            let configured = RetentionMessagingContent.DefaultMessage(productID: productID, locale: locale, messageID: messageID)
            if let index = app.defaults.firstIndex(where: { $0.productID == productID && $0.locale == locale }) {
                app.defaults[index] = configured
            } else {
                app.defaults.append(configured)
            }
            return nil
        }
    }

    /// The default message of a product in a locale, if one is configured.
    func defaultMessage(productID: String, locale: String, bundleID: String) async throws -> UUID? {
        try await content(bundleID).defaults.first { $0.productID == productID && $0.locale == locale }?.messageID
    }

    /// Removes the default message of a product in a locale, if there is one.
    func deleteDefault(productID: String, locale: String, bundleID: String) async throws {
        try await update(bundleID) { app in
            app.defaults.removeAll { $0.productID == productID && $0.locale == locale }
            return nil
        }
    }

    // MARK: Realtime URL

    /// Sets or, with `nil`, removes the app's Get Retention Message URL.
    func setRealtimeURL(_ url: URL?, bundleID: String) async throws {
        try await update(bundleID) { app in
            app.realtimeURL = url
            return nil
        }
    }

    /// The app's Get Retention Message URL, if configured.
    func realtimeURL(bundleID: String) async throws -> URL? {
        try await content(bundleID).realtimeURL
    }

    // MARK: Performance tests

    /// Starts `test` for the app unless one is running, and runs it in the background; its results fill in as its
    /// requests finish.
    ///
    /// - Throws: ``ServerAPIError`` 400 `existingPerformanceTestRun` while another test of the app runs.
    func startPerformanceTest(_ test: PerformanceTest, bundleID: String) throws(ServerAPIError) {
        var app = performanceTests[bundleID] ?? PerformanceTests()
        if let running = app.running, app.runs[running]?.isFinished == false { throw .existingPerformanceTestRun }
        app.runs[test.id] = PerformanceTestRun(target: test.target, settings: test.settings)
        app.running = test.id
        performanceTests[bundleID] = app
        runs[test.id] = Task {
            await test.run { outcome in await self.record(outcome, test: test.id, bundleID: bundleID) }
        }
    }

    /// A performance test of the app, as far as it has run.
    func performanceTest(_ id: UUID, bundleID: String) -> PerformanceTestRun? {
        performanceTests[bundleID]?.runs[id]
    }

    /// Waits until a performance test has sent all its requests; for tests and for embedders that want the result.
    func performanceTestFinished(_ id: UUID) async {
        await runs[id]?.value
    }

    private func record(_ outcome: PerformanceTestRun.Outcome, test id: UUID, bundleID: String) {
        performanceTests[bundleID]?.runs[id]?.outcomes.append(outcome)
    }
}
