"""Text bank for the seeded ITSM world.

This module holds the static, hand-written vocabulary that the seeded world builder
(``mocks/itsm/world.py``) draws from when it generates users, groups, locations,
configuration items, incidents, problems, change requests, catalog items and knowledge
articles. Everything here is plain data: module-level constants made of tuples, dicts
and strings, with no randomness and no side effects, so that a given seed always yields
the same world.

All people, companies, street addresses, host names, URLs and phone numbers are
fictional. Product names (Outlook, SAP, Okta, ...) are used only so that the text reads
like a real enterprise help desk.

Placeholders:
    Incident and change text may contain only ``{ci_name}``, ``{app_name}`` and
    ``{location}``. Journal lines (work notes, comments, caller replies, close notes) may
    contain only ``{caller_first_name}``, ``{group}`` and ``{number}``; a caller's reply never
    names the caller. Knowledge article bodies and every other string contain no placeholders.
    Fill them with ``str.format``.

Codes:
    Choice values follow ServiceNow base conventions: incident ``impact``/``urgency`` are
    ``"1"`` (High) to ``"3"`` (Low), change ``risk`` is ``"2"`` (High) to ``"4"`` (Low),
    CI ``operational_status`` ``"1"`` is Operational, and incident categories and
    subcategories are the lowercase base choice values.
"""

from typing import Final, TypedDict

# ---------------------------------------------------------------------------
# Record shapes
# ---------------------------------------------------------------------------


class GroupSpec(TypedDict):
    """An assignment group (``sys_user_group``)."""

    name: str
    description: str
    email: str
    """Local part only; the builder appends the world's mail domain."""
    incident_categories: tuple[str, ...]
    """Keys of :data:`INCIDENT_CATEGORIES` the group takes incidents for."""
    ci_kinds: tuple[str, ...]
    """``kind`` values of :data:`CI_CATALOG` the group supports."""


class LocationSpec(TypedDict):
    """An office site (``cmn_location``)."""

    name: str
    street: str
    city: str
    state: str
    zip: str
    country: str


class SymptomSpec(TypedDict):
    """An incident template, written the way a caller reports the problem."""

    category: str
    subcategory: str
    short_description: str
    description: str
    impact: str
    urgency: str
    group: str
    keywords: tuple[str, ...]
    kb_topic: str | None
    ci_kind: str | None
    """``kind`` of the CI the incident is usually logged against, if any."""


class KbTopicSpec(TypedDict):
    """A knowledge article (``kb_knowledge``); ``text`` is simple HTML."""

    short_description: str
    category: str
    keywords: tuple[str, ...]
    text: str


class CiKindSpec(TypedDict):
    """A family of configuration items (``cmdb_ci`` and subclasses).

    Exactly one of ``name_patterns`` (``str.format`` patterns taking ``n``) and
    ``names`` (fixed names) is non-empty.
    """

    kind: str
    sys_class_name: str
    name_patterns: tuple[str, ...]
    names: tuple[str, ...]
    category: str
    subcategory: str
    model_numbers: tuple[str, ...]
    """Full model names including the manufacturer; empty for applications."""
    os: tuple[str, ...]
    operational_status: str
    support_group: str


class CatalogItemSpec(TypedDict):
    """A service catalog item (``sc_cat_item``)."""

    name: str
    short_description: str
    category: str
    price: str
    group: str


class ChangeTemplateSpec(TypedDict):
    """A change request template; text may use the incident placeholders."""

    type: str
    short_description: str
    description: str
    justification: str
    implementation_plan: str
    backout_plan: str
    test_plan: str
    risk: str
    impact: str
    category: str
    group: str
    ci_kind: str | None


class ProblemTemplateSpec(TypedDict):
    """A problem template (``problem``)."""

    short_description: str
    description: str
    category: str
    subcategory: str
    group: str
    impact: str
    urgency: str
    cause_notes: str
    fix_notes: str
    workaround: str


# ---------------------------------------------------------------------------
# Organisation: groups, departments, locations, job titles
# ---------------------------------------------------------------------------

GROUPS: Final[tuple[GroupSpec, ...]] = (
    {
        "name": "Service Desk",
        "description": (
            "First line support. Takes calls, chats and portal tickets, resolves common requests "
            "on first contact and routes everything else to the right resolver group."
        ),
        "email": "servicedesk",
        "incident_categories": ("inquiry", "software", "hardware", "network"),
        "ci_kinds": ("laptop", "macbook"),
    },
    {
        "name": "Network",
        "description": (
            "Owns the LAN, Wi-Fi, WAN links, firewalls, DNS/DHCP and remote access VPN for all office sites."
        ),
        "email": "network.ops",
        "incident_categories": ("network",),
        "ci_kinds": ("network_switch", "firewall", "wireless_controller", "vpn_gateway"),
    },
    {
        "name": "Database",
        "description": (
            "Database administration for Oracle, Microsoft SQL Server and DB2: availability, "
            "performance, backups, refreshes and access."
        ),
        "email": "dba.team",
        "incident_categories": ("database",),
        "ci_kinds": ("linux_db_server", "windows_db_server"),
    },
    {
        "name": "Hardware",
        "description": (
            "Desk-side and depot support for laptops, monitors, docks and peripherals, plus "
            "server hardware break/fix and warranty claims."
        ),
        "email": "hardware.support",
        "incident_categories": ("hardware",),
        "ci_kinds": (
            "laptop",
            "macbook",
            "linux_app_server",
            "windows_app_server",
            "linux_db_server",
            "windows_db_server",
            "windows_infra_server",
        ),
    },
    {
        "name": "Identity and Access",
        "description": (
            "Accounts, passwords, multi-factor authentication, single sign-on and access "
            "requests for business applications and shared folders."
        ),
        "email": "iam",
        "incident_categories": ("inquiry", "software"),
        "ci_kinds": ("application", "windows_infra_server"),
    },
    {
        "name": "Email",
        "description": (
            "Messaging team for Exchange Online and Outlook: mailboxes, distribution lists, "
            "mail flow, quarantine and mobile mail."
        ),
        "email": "messaging",
        "incident_categories": ("inquiry", "software"),
        "ci_kinds": ("application",),
    },
    {
        "name": "Applications",
        "description": (
            "Application support for the business systems (SAP, Salesforce, Workday, "
            "collaboration tools and in-house apps) and the Windows and Linux app servers."
        ),
        "email": "app.support",
        "incident_categories": ("inquiry", "software"),
        "ci_kinds": ("application", "linux_app_server", "windows_app_server"),
    },
    {
        "name": "Change Advisory Board",
        "description": (
            "Reviews and authorises normal and emergency changes, runs the weekly CAB meeting "
            "and owns the change freeze calendar."
        ),
        "email": "cab",
        "incident_categories": (),
        "ci_kinds": (),
    },
)

DEPARTMENTS: Final[tuple[str, ...]] = (
    "Finance",
    "Human Resources",
    "Sales",
    "Engineering",
    "IT",
    "Legal",
    "Marketing",
    "Customer Support",
    "Operations",
    "Procurement",
    "Facilities",
    "Product",
)

LOCATIONS: Final[tuple[LocationSpec, ...]] = (
    {
        "name": "New York HQ",
        "street": "410 Halvorsen Avenue, 22nd Floor",
        "city": "New York",
        "state": "NY",
        "zip": "10018",
        "country": "USA",
    },
    {
        "name": "San Francisco Office",
        "street": "88 Larkspur Wharf Street, Suite 600",
        "city": "San Francisco",
        "state": "CA",
        "zip": "94107",
        "country": "USA",
    },
    {
        "name": "Chicago Office",
        "street": "1275 West Calloway Drive",
        "city": "Chicago",
        "state": "IL",
        "zip": "60607",
        "country": "USA",
    },
    {
        "name": "Austin Office",
        "street": "5300 Bluebonnet Ridge Parkway, Building C",
        "city": "Austin",
        "state": "TX",
        "zip": "78758",
        "country": "USA",
    },
    {
        "name": "Toronto Office",
        "street": "200 Wellesford Street East, 9th Floor",
        "city": "Toronto",
        "state": "ON",
        "zip": "M5A 1K4",
        "country": "Canada",
    },
    {
        "name": "London Office",
        "street": "17 Aldercroft Lane",
        "city": "London",
        "state": "",
        "zip": "EC2A 4PQ",
        "country": "United Kingdom",
    },
    {
        "name": "Dublin Office",
        "street": "Unit 4, Ferrybank Quay",
        "city": "Dublin",
        "state": "",
        "zip": "D02 XR68",
        "country": "Ireland",
    },
    {
        "name": "Berlin Office",
        "street": "Lindenhofer Strasse 42",
        "city": "Berlin",
        "state": "",
        "zip": "10969",
        "country": "Germany",
    },
    {
        "name": "Singapore Office",
        "street": "31 Tanjong Kemuning Road, #12-03",
        "city": "Singapore",
        "state": "",
        "zip": "068912",
        "country": "Singapore",
    },
    {
        "name": "Sydney Office",
        "street": "Level 14, 260 Corrigan Street",
        "city": "Sydney",
        "state": "NSW",
        "zip": "2000",
        "country": "Australia",
    },
)

JOB_TITLES: Final[dict[str, tuple[str, ...]]] = {
    "Finance": (
        "Accounts Payable Specialist",
        "Financial Analyst",
        "Senior Accountant",
        "Payroll Coordinator",
        "Finance Manager",
        "Controller",
    ),
    "Human Resources": (
        "HR Generalist",
        "Recruiter",
        "HR Business Partner",
        "Benefits Administrator",
        "Head of People",
    ),
    "Sales": (
        "Account Executive",
        "Sales Development Representative",
        "Regional Sales Manager",
        "Sales Operations Analyst",
        "VP of Sales",
    ),
    "Engineering": (
        "Software Engineer",
        "Senior Software Engineer",
        "Site Reliability Engineer",
        "QA Engineer",
        "Engineering Manager",
        "Principal Engineer",
    ),
    "IT": (
        "Service Desk Analyst",
        "Desktop Support Technician",
        "Network Engineer",
        "Database Administrator",
        "Systems Administrator",
        "IT Manager",
    ),
    "Legal": (
        "Paralegal",
        "Corporate Counsel",
        "Contracts Manager",
        "General Counsel",
    ),
    "Marketing": (
        "Marketing Coordinator",
        "Content Strategist",
        "Digital Marketing Manager",
        "Brand Designer",
        "Director of Marketing",
    ),
    "Customer Support": (
        "Customer Support Representative",
        "Technical Support Specialist",
        "Customer Success Manager",
        "Support Team Lead",
    ),
    "Operations": (
        "Operations Analyst",
        "Business Operations Manager",
        "Logistics Coordinator",
        "Chief Operating Officer",
    ),
    "Procurement": (
        "Buyer",
        "Procurement Specialist",
        "Vendor Manager",
        "Procurement Manager",
    ),
    "Facilities": (
        "Facilities Coordinator",
        "Office Manager",
        "Workplace Services Lead",
    ),
    "Product": (
        "Product Manager",
        "Senior Product Manager",
        "Product Designer",
        "UX Researcher",
        "Director of Product",
    ),
}

# ---------------------------------------------------------------------------
# Incident categories (ServiceNow base choice values)
# ---------------------------------------------------------------------------

INCIDENT_CATEGORIES: Final[dict[str, tuple[str, ...]]] = {
    "inquiry": ("antivirus", "email", "internal application"),
    "software": ("email", "os", "internal application"),
    "hardware": ("cpu", "disk", "keyboard", "memory", "monitor", "mouse"),
    "network": ("dhcp", "dns", "ip address", "vpn", "wireless"),
    "database": ("db2", "ms sql server", "oracle"),
}

#: Categories a knowledge article may be filed under.
KB_CATEGORIES: Final[tuple[str, ...]] = (
    "Email",
    "Network",
    "Hardware",
    "Software",
    "Accounts and Access",
    "Security",
    "Printing",
    "Mobile",
    "Collaboration",
    "Database",
)

# ---------------------------------------------------------------------------
# Knowledge base articles
# ---------------------------------------------------------------------------

KB_TOPICS: Final[dict[str, KbTopicSpec]] = {
    # ----- Email -----------------------------------------------------------
    "outlook_password_prompt": {
        "short_description": "Outlook keeps asking for your password",
        "category": "Email",
        "keywords": ("outlook", "password", "prompt", "credentials", "exchange"),
        "text": (
            "<p><b>Symptoms:</b> Outlook shows a 'Windows Security' or 'Enter password' window every few "
            "minutes, even after you type the correct password. Mail may stop updating and the status "
            "bar shows 'Need Password'.</p>"
            "<p><b>Cause:</b> An old saved credential from before your last password change is still "
            "stored in Windows Credential Manager, so Outlook keeps offering the wrong one to Exchange "
            "Online.</p>"
            "<ol>"
            "<li>Close Outlook completely, including the icon in the system tray.</li>"
            "<li>Open <b>Control Panel > User Accounts > Credential Manager > Windows Credentials</b>.</li>"
            "<li>Remove every entry that starts with <b>MicrosoftOffice16_Data</b> or mentions "
            "<b>outlook.office365.com</b>.</li>"
            "<li>Restart Outlook and sign in once with your full email address and current password. "
            "Approve the MFA prompt on your phone.</li>"
            "</ol>"
            "<p>If the prompt returns within a day, or your account shows as locked, contact the Service "
            "Desk so we can check your sign-in logs.</p>"
        ),
    },
    "outlook_error_0x800ccc0e": {
        "short_description": "Fix Outlook send/receive error 0x800CCC0E",
        "category": "Email",
        "keywords": ("outlook", "0x800ccc0e", "send", "receive", "smtp", "error"),
        "text": (
            "<p><b>Symptoms:</b> Sending or receiving fails with 'Sending reported error (0x800CCC0E): "
            "Outlook cannot connect to your outgoing (SMTP) e-mail server.' Messages stay in the "
            "Outbox.</p>"
            "<p><b>Cause:</b> This error appears when Outlook uses a POP/IMAP profile instead of the "
            "company Exchange profile, or when a firewall or antivirus add-in blocks port 587. Company "
            "mailboxes should never be set up as POP or IMAP.</p>"
            "<ol>"
            "<li>In Outlook go to <b>File > Account Settings > Account Settings</b> and check the "
            "<b>Type</b> column. It must say <b>Microsoft Exchange</b>.</li>"
            "<li>If it says POP/SMTP or IMAP/SMTP, open <b>Control Panel > Mail (Microsoft Outlook) > "
            "Show Profiles</b>, click <b>Add</b> and create a new profile with only your work "
            "address.</li>"
            "<li>Select <b>Always use this profile</b>, choose the new profile and restart Outlook.</li>"
            "<li>Move any stuck items from the old Outbox by dragging them to Drafts and sending again."
            "</li>"
            "</ol>"
            "<p>Contact the Service Desk if the error persists on a correctly configured Exchange "
            "profile.</p>"
        ),
    },
    "mailbox_full": {
        "short_description": "Your mailbox is full: how to free up space",
        "category": "Email",
        "keywords": ("mailbox", "quota", "full", "archive", "storage"),
        "text": (
            "<p><b>Symptoms:</b> You receive the warning 'Your mailbox is almost full' or 'Your mailbox "
            "is full and can no longer send messages'. At 49 GB you can no longer send, and at 50 GB "
            "you stop receiving mail.</p>"
            "<p><b>Cause:</b> The standard mailbox quota is 50 GB. Large attachments and the Deleted "
            "Items and Sent Items folders usually take most of the space.</p>"
            "<ol>"
            "<li>In Outlook select <b>File > Tools > Mailbox Cleanup</b> and click <b>View Mailbox "
            "Size</b> to see which folders are largest.</li>"
            "<li>Right-click <b>Deleted Items</b> and choose <b>Empty Folder</b>, then do the same for "
            "<b>Junk Email</b>.</li>"
            "<li>Search for <b>size:enormous</b> to find messages over 5 MB. Save attachments you need "
            "to OneDrive and delete the messages.</li>"
            "<li>Move older mail to your <b>Online Archive</b> folder, which has its own 100 GB quota "
            "and an automatic two-year archive policy.</li>"
            "</ol>"
            "<p>If you need a quota increase for business reasons, raise a request with your manager's "
            "approval through the Service Desk.</p>"
        ),
    },
    "shared_mailbox_access": {
        "short_description": "How to open a shared mailbox in Outlook",
        "category": "Email",
        "keywords": ("shared", "mailbox", "outlook", "permissions", "automapping"),
        "text": (
            "<p><b>Symptoms:</b> You were granted access to a shared mailbox such as accounts payable "
            "or a team inbox, but it does not appear in the Outlook folder pane, or you get 'Cannot "
            "expand the folder' when opening it.</p>"
            "<p><b>Cause:</b> Outlook adds shared mailboxes automatically (automapping) only after the "
            "permission has replicated, which can take up to two hours. Access that was granted through "
            "a security group is never automapped.</p>"
            "<ol>"
            "<li>Restart Outlook after two hours. The mailbox should appear under your own.</li>"
            "<li>If it does not, go to <b>File > Account Settings > Account Settings</b>, double-click "
            "your account, select <b>More Settings > Advanced > Add</b> and type the shared mailbox "
            "name.</li>"
            "<li>In Outlook on the web, right-click <b>Folders</b> and choose <b>Add shared folder or "
            "mailbox</b>.</li>"
            "<li>To send as the mailbox, click <b>From</b> in a new message and pick the shared address."
            "</li>"
            "</ol>"
            "<p>If you still see 'Cannot expand the folder', ask the Service Desk to confirm that Full "
            "Access was granted to you and not only Send As.</p>"
        ),
    },
    "outlook_ost_rebuild": {
        "short_description": "Rebuild a corrupt Outlook data file (OST)",
        "category": "Email",
        "keywords": ("outlook", "ost", "corrupt", "sync", "rebuild", "offline"),
        "text": (
            "<p><b>Symptoms:</b> Folders show different content than Outlook on the web, mail you "
            "deleted keeps coming back, or Outlook reports 'The file C:\\Users\\...\\.ost is not an "
            "Outlook data file'. Outlook may also hang on 'Processing' at start-up.</p>"
            "<p><b>Cause:</b> The offline cache file (.ost) that Outlook keeps on the laptop has become "
            "corrupt, often after a forced shutdown or a full disk. Your mail is safe on the server; "
            "only the local copy is damaged.</p>"
            "<ol>"
            "<li>Close Outlook and wait until OUTLOOK.EXE no longer appears in Task Manager.</li>"
            "<li>Press <b>Win+R</b>, type <b>%localappdata%\\Microsoft\\Outlook</b> and press Enter.</li>"
            "<li>Rename the file ending in <b>.ost</b> to <b>.old</b>.</li>"
            "<li>Start Outlook. It downloads a fresh copy of your mailbox, which can take an hour on "
            "large mailboxes. Leave the laptop plugged in and on the office network or VPN.</li>"
            "<li>Once everything looks correct, delete the .old file.</li>"
            "</ol>"
            "<p>Do not rename or delete .pst files, which are local archives and not stored on the "
            "server. Call the Service Desk if you are unsure which file is which.</p>"
        ),
    },
    "email_ndr_550": {
        "short_description": "Understanding bounce-back messages (NDR 550 5.1.1 and 5.7.1)",
        "category": "Email",
        "keywords": ("bounce", "ndr", "undeliverable", "550", "delivery", "recipient"),
        "text": (
            "<p><b>Symptoms:</b> You receive an 'Undeliverable' message from Microsoft Outlook shortly "
            "after sending email. The message contains a code such as <b>550 5.1.1</b> or "
            "<b>550 5.7.1</b>.</p>"
            "<p><b>Cause:</b> The code tells you why delivery failed:</p>"
            "<ul>"
            "<li><b>550 5.1.1 RESOLVER.ADR.RecipNotFound</b>: the address does not exist. Usually a "
            "typo or an old entry in your autocomplete list.</li>"
            "<li><b>550 5.7.1 RESOLVER.RST.AuthRequired</b>: the recipient is a distribution list that "
            "only accepts mail from internal senders or from its members.</li>"
            "<li><b>554 5.2.2 mailbox full</b>: the recipient's mailbox is over quota.</li>"
            "</ul>"
            "<ol>"
            "<li>Check the spelling of the address in the bounce message.</li>"
            "<li>Remove a stale suggestion by pointing at it in the To field and clicking the <b>X</b>."
            "</li>"
            "<li>For 5.7.1 ask the list owner to allow your address.</li>"
            "</ol>"
            "<p>If many external messages bounce with 5.7.x codes, forward one bounce as an attachment to "
            "the Service Desk so the messaging team can check mail flow.</p>"
        ),
    },
    "outlook_search_not_working": {
        "short_description": "Outlook search returns no or incomplete results",
        "category": "Email",
        "keywords": ("outlook", "search", "indexing", "results", "windows"),
        "text": (
            "<p><b>Symptoms:</b> Searching in Outlook returns 'We couldn't find what you were looking "
            "for' even though the message exists, or only finds mail from the last few weeks.</p>"
            "<p><b>Cause:</b> Outlook desktop search relies on the Windows Search index. The index may be "
            "incomplete after an Outlook rebuild, or Outlook may be excluded from indexing. A setting "
            "that keeps only 12 months of mail offline also limits results.</p>"
            "<ol>"
            "<li>Click in the search box and check the status under <b>Search > Search Tools > Indexing "
            "Status</b>. If items remain to be indexed, leave Outlook open for a few hours.</li>"
            "<li>Open <b>Control Panel > Indexing Options > Modify</b> and make sure <b>Microsoft "
            "Outlook</b> is ticked.</li>"
            "<li>If results are still missing, choose <b>Advanced > Rebuild</b>. Rebuilding can take "
            "several hours.</li>"
            "<li>To search older mail at once, switch the scope drop-down to <b>All Mailboxes</b>, which "
            "also searches the server.</li>"
            "</ol>"
            "<p>Contact the Service Desk if Indexing Options shows 'Indexing is paused' and cannot be "
            "resumed.</p>"
        ),
    },
    "out_of_office": {
        "short_description": "Set up automatic replies (Out of Office)",
        "category": "Email",
        "keywords": ("automatic", "replies", "out", "office", "vacation", "outlook"),
        "text": (
            "<p>Use automatic replies to let people know you are away and who to contact instead. This "
            "article covers Outlook for Windows, Outlook for Mac and Outlook on the web.</p>"
            "<ol>"
            "<li><b>Windows:</b> go to <b>File > Automatic Replies</b>, select <b>Send automatic "
            "replies</b> and tick <b>Only send during this time range</b>.</li>"
            "<li><b>Mac:</b> go to <b>Tools > Automatic Replies</b>.</li>"
            "<li><b>Web:</b> open the gear icon, then <b>Mail > Automatic replies</b>.</li>"
            "<li>Enter separate messages on the <b>Inside My Organization</b> and <b>Outside My "
            "Organization</b> tabs. For external replies choose <b>My contacts only</b> if you do not "
            "want to confirm your absence to unknown senders.</li>"
            "<li>Click <b>OK</b>. A yellow banner confirms replies are on.</li>"
            "</ol>"
            "<p>If you forgot to turn replies on before leaving, your manager can ask the Service Desk "
            "to set them for you. Requests must come from your manager or HR.</p>"
        ),
    },
    "calendar_delegate": {
        "short_description": "Give an assistant delegate access to your calendar",
        "category": "Email",
        "keywords": ("calendar", "delegate", "assistant", "permissions", "meetings"),
        "text": (
            "<p>A delegate can create, accept and decline meetings on your behalf. Managers commonly "
            "give this access to an executive assistant.</p>"
            "<ol>"
            "<li>In Outlook for Windows go to <b>File > Account Settings > Delegate Access</b> and click "
            "<b>Add</b>.</li>"
            "<li>Choose the person and set <b>Calendar</b> to <b>Editor (can read, create, and modify "
            "items)</b>.</li>"
            "<li>Under <b>Deliver meeting requests</b> choose whether you receive copies of requests "
            "or only your delegate does.</li>"
            "<li>Tick <b>Delegate can see my private items</b> only if needed.</li>"
            "<li>The delegate opens your calendar with <b>Open Calendar > Open Shared Calendar</b>."
            "</li>"
            "</ol>"
            "<p><b>Known issue:</b> if delegate changes do not appear, both users should be on the "
            "current Microsoft 365 Apps build, because older builds use a different sharing model. If "
            "the <b>Delegate Access</b> button is greyed out, contact the Service Desk.</p>"
        ),
    },
    "distribution_list_membership": {
        "short_description": "Join, leave or manage a distribution list",
        "category": "Email",
        "keywords": ("distribution", "list", "group", "membership", "owner"),
        "text": (
            "<p>Distribution lists deliver one email to many people. Each list has at least one owner "
            "who approves membership.</p>"
            "<ol>"
            "<li>To see who owns a list, open a new message, type the list name in <b>To</b>, "
            "right-click it and choose <b>Open Contact Card</b>. The owner is shown under "
            "<b>Owners</b>.</li>"
            "<li>To join an open list, go to Outlook on the web, open <b>Groups > Browse "
            "groups</b>, find the list and click <b>Join</b>.</li>"
            "<li>Closed lists need the owner's approval. Use the <b>Distribution List</b> item in the "
            "Service Catalog and name the list.</li>"
            "<li>Owners can add and remove members directly with the <b>Members</b> tab of the contact "
            "card.</li>"
            "</ol>"
            "<p>New lists, changes to who may send to a list and owner transfers for people who have "
            "left the company are handled by the messaging team. Request them in the Service Catalog. "
            "Lists with more than 5,000 members need IT approval.</p>"
        ),
    },
    "outlook_safe_mode_addins": {
        "short_description": "Start Outlook in safe mode and disable faulty add-ins",
        "category": "Email",
        "keywords": ("outlook", "safe", "mode", "addins", "crash", "startup"),
        "text": (
            "<p><b>Symptoms:</b> Outlook crashes when opening, freezes on the splash screen at "
            "'Loading Profile', or shows 'Outlook stopped working'.</p>"
            "<p><b>Cause:</b> A COM add-in such as an old CRM connector, PDF plug-in or meeting add-in "
            "fails to load. Safe mode starts Outlook without add-ins so you can find the culprit.</p>"
            "<ol>"
            "<li>Close Outlook. Hold <b>Ctrl</b> and click the Outlook icon, then click <b>Yes</b> when "
            "asked to start in safe mode. You can also run <b>outlook.exe /safe</b> from <b>Win+R</b>."
            "</li>"
            "<li>If Outlook opens normally in safe mode, go to <b>File > Options > Add-ins</b>, select "
            "<b>COM Add-ins</b> and click <b>Go</b>.</li>"
            "<li>Clear all check boxes, restart Outlook normally, then re-enable add-ins one at a time "
            "to find the faulty one.</li>"
            "<li>Leave the faulty add-in disabled.</li>"
            "</ol>"
            "<p>If Outlook also crashes in safe mode, run an Office repair or contact the Service Desk "
            "with the time of the crash.</p>"
        ),
    },
    "email_signature": {
        "short_description": "Set up the standard company email signature",
        "category": "Email",
        "keywords": ("signature", "outlook", "branding", "template", "email"),
        "text": (
            "<p>All external email should use the standard signature: full name, job title, "
            "department, office phone and the company logo. Do not add quotes, personal images or "
            "social media icons.</p>"
            "<ol>"
            "<li>Download the current signature template from the intranet page <b>Brand > Email "
            "signature</b>.</li>"
            "<li>In Outlook for Windows go to <b>File > Options > Mail > Signatures</b>. In the new "
            "Outlook and on the web go to <b>Settings > Accounts > Signatures</b>.</li>"
            "<li>Click <b>New</b>, name it 'Standard' and paste the template. Replace the sample name, "
            "title and phone number.</li>"
            "<li>Set <b>New messages</b> to Standard. For <b>Replies/forwards</b> you may use a shorter "
            "version with only your name and title.</li>"
            "</ol>"
            "<p>Signatures created in Outlook for Windows roam to the web and Mac only when the "
            "'roaming signatures' feature is on. If your signature disappears after a reinstall, "
            "please recreate it and tell the Service Desk.</p>"
        ),
    },
    "email_quarantine_release": {
        "short_description": "Find and release a message held in email quarantine",
        "category": "Email",
        "keywords": ("quarantine", "spam", "junk", "release", "defender"),
        "text": (
            "<p><b>Symptoms:</b> An external sender says they emailed you, but the message is not in "
            "your Inbox or Junk Email folder. You may have received a 'Quarantine notification' "
            "digest.</p>"
            "<p><b>Cause:</b> Microsoft Defender for Office 365 holds messages that look like spam, bulk "
            "mail or phishing in quarantine for 30 days. Messages classed as high-confidence phishing or "
            "malware can only be released by the security team.</p>"
            "<ol>"
            "<li>Open the quarantine portal from the link in your digest, or go to the Microsoft "
            "Defender portal and select <b>Email & collaboration > Review > Quarantine</b>.</li>"
            "<li>Find the message by sender or subject and check the <b>Quarantine reason</b>.</li>"
            "<li>If the reason is <b>Spam</b> or <b>Bulk</b>, select it and click <b>Release</b>. Tick "
            "<b>Report messages to Microsoft</b> to improve filtering.</li>"
            "<li>If the reason is <b>Phish</b> or <b>Malware</b>, click <b>Request release</b>.</li>"
            "</ol>"
            "<p>Never release a message you were not expecting. If a trusted partner's mail is "
            "repeatedly quarantined, raise a ticket so the sender's domain can be reviewed.</p>"
        ),
    },
    "large_attachments": {
        "short_description": "Sending large files: attachment size limits",
        "category": "Email",
        "keywords": ("attachment", "size", "limit", "onedrive", "large", "files"),
        "text": (
            "<p><b>Symptoms:</b> Outlook says 'The attachment size exceeds the allowable limit', or the "
            "message is returned with <b>552 5.3.4 Message size exceeds fixed maximum message "
            "size</b>.</p>"
            "<p><b>Cause:</b> The company limit is 25 MB per message including encoding overhead, so a "
            "20 MB file can already fail. Many external recipients have even smaller limits.</p>"
            "<ol>"
            "<li>Save the file to OneDrive or a SharePoint document library.</li>"
            "<li>In Outlook click <b>Attach File > Browse Web Locations</b> (or <b>Upload to "
            "OneDrive</b>) so a link is sent instead of the file.</li>"
            "<li>Click the arrow next to the attached link and choose <b>Change Permissions</b>. For "
            "external recipients choose <b>Specific people</b>.</li>"
            "<li>For files over 250 GB or for regulated data, use the approved secure file transfer "
            "service instead.</li>"
            "</ol>"
            "<p>Do not zip files to get around the limit or use personal file-sharing sites, which are "
            "blocked by the web proxy. Contact the Service Desk if an external partner cannot open a "
            "shared link.</p>"
        ),
    },
    "outlook_disconnected": {
        "short_description": "Outlook shows Disconnected or Trying to connect",
        "category": "Email",
        "keywords": ("outlook", "disconnected", "offline", "connect", "status"),
        "text": (
            "<p><b>Symptoms:</b> The Outlook status bar shows <b>Disconnected</b>, <b>Working "
            "Offline</b> or <b>Trying to connect...</b>, and new mail stops arriving, while web "
            "browsing still works.</p>"
            "<p><b>Cause:</b> Outlook may have been switched to offline mode by accident, the network "
            "changed while the laptop was asleep, or a stale proxy setting is blocking "
            "outlook.office365.com.</p>"
            "<ol>"
            "<li>On the <b>Send / Receive</b> tab check whether <b>Work Offline</b> is highlighted. "
            "Click it once to go back online.</li>"
            "<li>Open <b>https://outlook.office.com</b> in a browser. If mail loads there, the "
            "problem is local to the Outlook app.</li>"
            "<li>Hold <b>Ctrl</b>, right-click the Outlook icon in the system tray and choose "
            "<b>Connection Status</b>. Entries showing 'Disconnected' point to a network or proxy issue."
            "</li>"
            "<li>Restart the laptop, which clears most stale network and proxy states.</li>"
            "</ol>"
            "<p>If Outlook on the web also fails, or several colleagues are affected, contact the Service "
            "Desk, as this may be a wider outage.</p>"
        ),
    },
    # ----- Network ---------------------------------------------------------
    "vpn_token_reset": {
        "short_description": "How to reset your VPN token",
        "category": "Network",
        "keywords": ("vpn", "token", "reset", "mfa", "globalprotect", "authenticator"),
        "text": (
            "<p><b>Symptoms:</b> GlobalProtect shows 'Authentication failed' after you enter your "
            "password and the six-digit VPN code, or you no longer have the phone that held your VPN "
            "token.</p>"
            "<p><b>Cause:</b> VPN tokens are tied to a single authenticator app installation. A new "
            "phone, a restored backup or a phone clock that is out of sync all make the codes invalid."
            "</p>"
            "<ol>"
            "<li>On your phone open <b>Settings > General > Date & Time</b> (iPhone) or <b>Settings > "
            "System > Date & time</b> (Android) and turn on automatic time. Try a fresh code.</li>"
            "<li>If the code still fails, sign in to <b>https://myaccount.example.com</b> and open "
            "<b>Security info > VPN token > Reset</b>.</li>"
            "<li>Scan the new QR code with the authenticator app and delete the old VPN entry.</li>"
            "<li>Wait two minutes for the token to sync, then connect again.</li>"
            "</ol>"
            "<p>If you cannot reach the self-service page because you are locked out, call the Service "
            "Desk. We will verify your identity with your employee ID and manager before issuing a "
            "temporary code.</p>"
        ),
    },
    "vpn_error_809": {
        "short_description": "VPN error 809: the network connection could not be established",
        "category": "Network",
        "keywords": ("vpn", "error", "809", "ikev2", "firewall", "hotel"),
        "text": (
            "<p><b>Symptoms:</b> The backup Windows VPN connection ('Corp-Backup-VPN') fails with "
            "<b>Error 809: The network connection between your computer and the VPN server could not "
            "be established because the remote server is not responding</b>.</p>"
            "<p><b>Cause:</b> The backup connection uses IKEv2 on UDP ports 500 and 4500. Hotel, "
            "airport and some home routers block or mangle these ports, so the server never sees the "
            "request.</p>"
            "<ol>"
            "<li>Use the primary GlobalProtect client instead. It runs over HTTPS (TCP 443) and works on "
            "almost every network.</li>"
            "<li>If you must use the backup connection, try a different network such as a phone "
            "hotspot to confirm the local network is the problem.</li>"
            "<li>On a home router, enable <b>IPsec passthrough</b> or <b>VPN passthrough</b> in the "
            "firewall settings and restart it.</li>"
            "<li>Restart the <b>IKE and AuthIP IPsec Keying Modules</b> service from <b>services.msc</b> "
            "if the error appears on every network.</li>"
            "</ol>"
            "<p>Contact the Service Desk with the time of the failure if error 809 appears on a network "
            "where the connection worked before.</p>"
        ),
    },
    "globalprotect_connecting": {
        "short_description": "GlobalProtect stuck on Connecting or Still working",
        "category": "Network",
        "keywords": ("globalprotect", "vpn", "connecting", "portal", "gateway"),
        "text": (
            "<p><b>Symptoms:</b> The GlobalProtect icon spins on <b>Connecting...</b> or shows "
            "<b>Still working...</b> and never connects. Sometimes it reports 'Gateway vpn-gw-01: "
            "Authentication failed' or 'Portal does not exist'.</p>"
            "<p><b>Cause:</b> Typical causes are a captive portal (hotel or café sign-in page) that has "
            "not been accepted, a wrong portal address, or a cached gateway that is down for "
            "maintenance.</p>"
            "<ol>"
            "<li>Open a browser and load any website. Accept the hotel or café terms if a sign-in page "
            "appears.</li>"
            "<li>Click the GlobalProtect icon, then the gear, then <b>Settings</b>, and check that the "
            "portal is <b>vpn.example.com</b>.</li>"
            "<li>Click <b>Refresh Connection</b>. If it still hangs, choose <b>Disconnect</b>, wait "
            "ten seconds and connect again.</li>"
            "<li>In the gear menu choose <b>Select Gateway</b> and pick the nearest region manually "
            "instead of <b>Best Available</b>.</li>"
            "</ol>"
            "<p>If none of this works, collect logs with <b>Settings > Troubleshooting > Collect "
            "Logs</b> and attach the file to your ticket.</p>"
        ),
    },
    "vpn_slow_performance": {
        "short_description": "Slow performance when working over VPN",
        "category": "Network",
        "keywords": ("vpn", "slow", "latency", "bandwidth", "home", "wifi"),
        "text": (
            "<p><b>Symptoms:</b> File shares, SAP and internal websites are very slow on VPN, while "
            "Microsoft 365 and the internet seem fine. Video calls may freeze when the VPN is "
            "connected.</p>"
            "<p><b>Cause:</b> Internal traffic travels through the VPN gateway, so home Wi-Fi "
            "quality and the distance to the gateway matter. Teams and Zoom traffic bypasses the VPN "
            "(split tunnelling), so a slow call usually means a weak home connection.</p>"
            "<ol>"
            "<li>Run a speed test with the VPN disconnected. Below 10 Mbps upload, calls and large "
            "file copies will struggle.</li>"
            "<li>Move closer to your router or use an Ethernet cable. Avoid 2.4 GHz networks where "
            "possible.</li>"
            "<li>In GlobalProtect use <b>Select Gateway</b> and choose the gateway for your region. A "
            "European user connected to a US gateway adds 90 ms or more to every request.</li>"
            "<li>Pause large personal downloads, streaming or cloud backups on the same network.</li>"
            "</ol>"
            "<p>If the VPN is slow for you on a good connection, raise a ticket with the gateway name "
            "and the output of <b>ping -n 20 fs01.corp.example.com</b>.</p>"
        ),
    },
    "wifi_corporate_connect": {
        "short_description": "Connect to the corporate Wi-Fi network (CORP-SECURE)",
        "category": "Network",
        "keywords": ("wifi", "wireless", "corp", "certificate", "802.1x"),
        "text": (
            "<p>Company laptops connect to <b>CORP-SECURE</b> automatically using a device certificate "
            "(802.1X EAP-TLS). You should never be asked for a Wi-Fi password on a company laptop.</p>"
            "<p><b>Symptoms of a problem:</b> CORP-SECURE shows 'Can't connect to this network', or "
            "Windows asks for a user name and password.</p>"
            "<ol>"
            "<li>Confirm the laptop has been on the wired network or VPN in the last 30 days. The "
            "device certificate renews only when the laptop can reach the company network.</li>"
            "<li>Right-click CORP-SECURE in the Wi-Fi list and choose <b>Forget</b>, then connect "
            "again. Do not type any credentials.</li>"
            "<li>Open <b>certlm.msc > Personal > Certificates</b> and check that a certificate issued "
            "by <b>Corp Issuing CA 02</b> exists and has not expired.</li>"
            "<li>As a temporary measure, connect to <b>CORP-GUEST</b> and start the VPN.</li>"
            "</ol>"
            "<p>If the certificate is missing or expired, contact the Service Desk. Personal phones and "
            "tablets must use CORP-GUEST, not CORP-SECURE.</p>"
        ),
    },
    "wifi_guest_access": {
        "short_description": "Guest Wi-Fi access for visitors",
        "category": "Network",
        "keywords": ("guest", "wifi", "visitor", "voucher", "wireless"),
        "text": (
            "<p>Visitors, contractors without a company laptop and personal devices use the "
            "<b>CORP-GUEST</b> network. It provides internet access only and is isolated from internal "
            "systems.</p>"
            "<ol>"
            "<li>The visitor connects to <b>CORP-GUEST</b> and a sign-in page opens. If it does not, "
            "they should browse to <b>http://neverssl.com</b> to trigger it.</li>"
            "<li>The visitor enters their name, email address and the name of their host employee.</li>"
            "<li>The host receives an email and clicks <b>Approve</b>. Access lasts 24 hours.</li>"
            "<li>For events or multi-day visits, reception can print voucher codes valid for up to "
            "seven days.</li>"
            "</ol>"
            "<p><b>Known limits:</b> guest Wi-Fi blocks outbound SMTP (port 25), peer-to-peer "
            "traffic and some VPN protocols, so visitors' own company VPNs may need to run over "
            "TCP 443. Bandwidth is limited to 20 Mbps per device. For event networks with more than "
            "50 guests, raise a request at least five working days in advance.</p>"
        ),
    },
    "wifi_keeps_dropping": {
        "short_description": "Wi-Fi keeps disconnecting on a company laptop",
        "category": "Network",
        "keywords": ("wifi", "disconnect", "drops", "roaming", "driver", "wireless"),
        "text": (
            "<p><b>Symptoms:</b> The laptop loses Wi-Fi for a few seconds several times an hour, Teams "
            "calls show 'Reconnecting', or the Wi-Fi icon shows a yellow warning triangle.</p>"
            "<p><b>Cause:</b> The most common causes are an outdated Wi-Fi driver, aggressive power "
            "saving on the adapter, or the laptop holding on to a distant access point while you move "
            "between floors.</p>"
            "<ol>"
            "<li>Install pending driver updates from <b>Dell Command Update</b>, <b>Lenovo "
            "Vantage</b> or <b>Company Portal</b> and restart.</li>"
            "<li>Open <b>Device Manager > Network adapters</b>, open your Wi-Fi adapter and on the "
            "<b>Power Management</b> tab clear <b>Allow the computer to turn off this device to save "
            "power</b>.</li>"
            "<li>On the <b>Advanced</b> tab set <b>Roaming Aggressiveness</b> to <b>Medium-High</b>.</li>"
            "<li>Note the time and place of each drop. Run <b>netsh wlan show wlanreport</b> and attach "
            "the generated HTML report to your ticket.</li>"
            "</ol>"
            "<p>If several people in the same area have drops, report the floor and room so the network "
            "team can check the access point.</p>"
        ),
    },
    "dns_flush_cache": {
        "short_description": "Website or server name not found: flush the DNS cache",
        "category": "Network",
        "keywords": ("dns", "flush", "resolve", "hostname", "nslookup"),
        "text": (
            "<p><b>Symptoms:</b> A browser shows <b>DNS_PROBE_FINISHED_NXDOMAIN</b> or 'This site can't "
            "be reached', or a server name fails with 'Ping request could not find host', while "
            "colleagues can reach it.</p>"
            "<p><b>Cause:</b> Your laptop cached an old or failed DNS answer, often after a server "
            "moved to a new IP address or after you switched between VPN and office Wi-Fi.</p>"
            "<ol>"
            "<li>Open <b>Command Prompt</b> and run <b>ipconfig /flushdns</b>. You should see "
            "'Successfully flushed the DNS Resolver Cache'. On a Mac run <b>sudo dscacheutil "
            "-flushcache; sudo killall -HUP mDNSResponder</b>.</li>"
            "<li>Run <b>nslookup servername</b>. The answer should come from a 10.x.x.x DNS server.</li>"
            "<li>If nslookup returns the wrong address, disconnect and reconnect the VPN, which "
            "re-registers the internal DNS servers.</li>"
            "<li>Clear the browser's own cache at <b>chrome://net-internals/#dns</b>.</li>"
            "</ol>"
            "<p>If nslookup fails for everyone, the DNS record itself may be wrong. Contact the Service "
            "Desk with the exact name you are trying to reach.</p>"
        ),
    },
    "dhcp_apipa_address": {
        "short_description": "No network access and a 169.254.x.x IP address",
        "category": "Network",
        "keywords": ("dhcp", "169.254", "apipa", "ip", "ipconfig"),
        "text": (
            "<p><b>Symptoms:</b> The network icon shows 'No internet' and <b>ipconfig</b> lists an "
            "IPv4 address starting with <b>169.254</b>.</p>"
            "<p><b>Cause:</b> A 169.254 address means the laptop asked for an address and no DHCP "
            "server answered. This is caused by a faulty cable or wall port, a dock that has not "
            "initialised, or a DHCP scope that has run out of free addresses.</p>"
            "<ol>"
            "<li>Open Command Prompt and run <b>ipconfig /release</b> followed by "
            "<b>ipconfig /renew</b>.</li>"
            "<li>If you are on a dock, unplug it for ten seconds and plug it back in, or connect the "
            "cable directly to the laptop using a USB-C Ethernet adapter.</li>"
            "<li>Try a different wall port or switch to Wi-Fi to see whether the problem follows the "
            "laptop or the port.</li>"
            "<li>Write down the wall port label (for example <b>3F-D-112</b>) if a specific port "
            "fails.</li>"
            "</ol>"
            "<p>If several people on the same floor get 169.254 addresses at once, call the Service "
            "Desk immediately. This usually points to a DHCP scope or switch problem.</p>"
        ),
    },
    "ip_address_conflict": {
        "short_description": "Windows has detected an IP address conflict",
        "category": "Network",
        "keywords": ("ip", "conflict", "address", "static", "duplicate"),
        "text": (
            "<p><b>Symptoms:</b> Windows shows the notification <b>Windows has detected an IP address "
            "conflict</b> and network access stops, or a printer or lab device becomes unreachable "
            "intermittently.</p>"
            "<p><b>Cause:</b> Two devices are using the same IP address. This nearly always happens "
            "when someone sets a static address on a device in a range that DHCP also hands out, for "
            "example a test server or a printer configured by hand.</p>"
            "<ol>"
            "<li>Run <b>ipconfig /release</b> and <b>ipconfig /renew</b> to get a new address.</li>"
            "<li>Open <b>Settings > Network & internet > Ethernet</b> (or Wi-Fi) and check that "
            "<b>IP assignment</b> is <b>Automatic (DHCP)</b>. Company laptops must never use static "
            "addresses.</li>"
            "<li>Run <b>arp -a</b> and note the MAC address shown for the conflicting IP.</li>"
            "</ol>"
            "<p>Report the conflicting IP and MAC address to the Service Desk. The network team will "
            "trace the other device to a switch port and reserve the address properly. Lab and printer "
            "static addresses must be requested from the network team.</p>"
        ),
    },
    "proxy_site_blocked": {
        "short_description": "A website is blocked by the web proxy",
        "category": "Network",
        "keywords": ("proxy", "blocked", "website", "category", "filtering"),
        "text": (
            "<p><b>Symptoms:</b> Instead of the website you see a page titled <b>Access Denied - "
            "Blocked by Web Policy</b> that names a category such as 'Uncategorized', 'File Sharing' or "
            "'Newly Registered Domains'.</p>"
            "<p><b>Cause:</b> The company web gateway blocks categories that carry security or legal "
            "risk. New sites are often uncategorised for a few days and are blocked by default.</p>"
            "<ol>"
            "<li>Check the category shown on the block page and copy the full URL.</li>"
            "<li>If the site is needed for work, click <b>Request review</b> on the block page, or "
            "raise a ticket with the URL and a business reason.</li>"
            "<li>Do not try to bypass the block with personal VPNs, browser extensions or translation "
            "proxies. This is a breach of the acceptable use policy.</li>"
            "<li>If a site that worked yesterday now shows a certificate error instead of a block "
            "page, see the certificate warning article.</li>"
            "</ol>"
            "<p>Reviews for uncategorised business sites are usually completed within one working day. "
            "Requests for blocked categories such as file sharing need approval from the security "
            "team.</p>"
        ),
    },
    "map_network_drive": {
        "short_description": "Map a network drive to a department file share",
        "category": "Network",
        "keywords": ("network", "drive", "map", "share", "fileshare", "unc"),
        "text": (
            "<p>Department shares on the file servers are normally mapped automatically at sign-in "
            "(for example <b>S:</b> for your department and <b>H:</b> for your home folder). Use these "
            "steps when a drive is missing.</p>"
            "<ol>"
            "<li>Connect to the office network or start the VPN first. Drives map only when the file "
            "server is reachable.</li>"
            "<li>Open <b>File Explorer</b>, right-click <b>This PC</b> and choose <b>Map network "
            "drive</b>.</li>"
            "<li>Pick a free letter and enter the folder path, for example "
            "<b>\\\\fs01.corp.example.com\\finance</b>.</li>"
            "<li>Tick <b>Reconnect at sign-in</b> and click <b>Finish</b>.</li>"
            "<li>On a Mac use <b>Finder > Go > Connect to Server</b> and enter "
            "<b>smb://fs01.corp.example.com/finance</b>.</li>"
            "</ol>"
            "<p>If you see 'Windows cannot access' with error <b>0x80070035 The network path was not "
            "found</b>, check the VPN. If you see 'You do not have permission', request access from the "
            "folder owner through the Service Catalog.</p>"
        ),
    },
    "wired_port_not_working": {
        "short_description": "Desk network port not working or needs activation",
        "category": "Network",
        "keywords": ("ethernet", "port", "desk", "cable", "switch", "patch"),
        "text": (
            "<p><b>Symptoms:</b> Plugging a cable into the desk port gives no connection. The Ethernet "
            "adapter shows 'Network cable unplugged' and the port lights on the dock stay off.</p>"
            "<p><b>Cause:</b> Not every wall port is patched to a switch. Ports at new desks, in "
            "renovated areas or in meeting rooms may need to be patched and activated by the network "
            "team.</p>"
            "<ol>"
            "<li>Swap the cable for a known good one and try again.</li>"
            "<li>Plug the laptop into a neighbouring desk port. If that works, the original port "
            "needs patching.</li>"
            "<li>Note the label on the wall plate, for example <b>4F-B-027</b>. Every port has a "
            "floor, patch panel and number.</li>"
            "<li>Use Wi-Fi in the meantime.</li>"
            "</ol>"
            "<p>Raise a ticket with the port label, desk number and site. Port activations are "
            "usually completed within two working days. For a port that stopped working suddenly, "
            "mention any nearby building work, as cabling is sometimes disturbed.</p>"
        ),
    },
    "network_troubleshooting_basics": {
        "short_description": "Collecting network diagnostics for a slow connection",
        "category": "Network",
        "keywords": ("ping", "tracert", "latency", "slow", "diagnostics", "network"),
        "text": (
            "<p>When you report a slow or unreliable connection, the network team needs a few facts to "
            "find the cause quickly. Please collect them before raising a ticket.</p>"
            "<ol>"
            "<li>Note whether you are on office Wi-Fi, a desk cable, home Wi-Fi or VPN, and which "
            "building and floor you are on.</li>"
            "<li>Open Command Prompt and run <b>ping -n 50 10.10.0.1</b>. Copy the summary line with "
            "'Lost' and 'Average'. More than 1% loss or an average over 20 ms in the office is "
            "abnormal.</li>"
            "<li>Run <b>tracert -d outlook.office365.com</b> and copy the output.</li>"
            "<li>Run <b>ipconfig /all</b> and note the IPv4 address and DNS servers.</li>"
            "<li>Write down the exact times the problem happened.</li>"
            "</ol>"
            "<p>Attach everything to your ticket as text rather than a screenshot. If only one "
            "application is slow while everything else is fine, tell us which one, because the "
            "issue may belong to the application team instead.</p>"
        ),
    },
    "vpn_client_install": {
        "short_description": "Install or reinstall the GlobalProtect VPN client",
        "category": "Network",
        "keywords": ("globalprotect", "vpn", "install", "client", "company", "portal"),
        "text": (
            "<p>GlobalProtect is preinstalled on company laptops. Reinstall it if the app is missing, "
            "will not open, or shows 'PanGPS service is not running'.</p>"
            "<ol>"
            "<li><b>Windows:</b> open <b>Company Portal</b>, search for <b>GlobalProtect</b> and click "
            "<b>Reinstall</b>. The installer removes the old version first.</li>"
            "<li><b>Mac:</b> open <b>Self Service</b>, search for <b>GlobalProtect</b> and click "
            "<b>Install</b>. When macOS warns 'System Extension Blocked', open <b>System Settings > "
            "Privacy & Security</b> and click <b>Allow</b>.</li>"
            "<li>Restart the laptop and enter the portal address <b>vpn.example.com</b> if asked.</li>"
            "<li>Sign in with your company account and approve the MFA request.</li>"
            "</ol>"
            "<p>Personal computers may not install the VPN client. Contractors who need remote "
            "access on their own devices should use the virtual desktop service instead. If Company "
            "Portal shows the install as failed with code <b>0x87D1041C</b>, contact the Service Desk."
            "</p>"
        ),
    },
    # ----- Hardware --------------------------------------------------------
    "laptop_no_power": {
        "short_description": "Laptop will not power on or shows a black screen",
        "category": "Hardware",
        "keywords": ("laptop", "power", "boot", "black", "screen", "battery"),
        "text": (
            "<p><b>Symptoms:</b> Pressing the power button does nothing, the power light blinks but the "
            "screen stays black, or the laptop beeps or flashes a pattern of amber and white "
            "lights.</p>"
            "<p><b>Cause:</b> Most cases are a fully drained battery, a laptop stuck in a deep sleep "
            "state, or a faulty charger. Blink codes usually point to a memory or motherboard "
            "fault.</p>"
            "<ol>"
            "<li>Connect the original charger directly to a wall socket, not through the dock, and "
            "wait 15 minutes before trying again.</li>"
            "<li>Do a hard reset: unplug the charger and all cables, hold the power button for 30 "
            "seconds, then plug in the charger and press power once.</li>"
            "<li>If the screen stays black but the keyboard lights up, press <b>Win+Ctrl+Shift+B</b> to "
            "restart the graphics driver, or connect an external monitor.</li>"
            "<li>Count the blink pattern of the power light (for example 2 amber, 3 white on a Dell) "
            "and note it.</li>"
            "</ol>"
            "<p>If the laptop still will not start, contact the Service Desk with the asset tag and "
            "blink pattern. We can provide a loaner laptop while yours is repaired.</p>"
        ),
    },
    "laptop_battery": {
        "short_description": "Laptop battery drains fast or is swollen",
        "category": "Hardware",
        "keywords": ("battery", "drain", "swollen", "health", "laptop", "charging"),
        "text": (
            "<p><b>Symptoms:</b> The battery lasts less than two hours, the percentage jumps from 30% to "
            "0%, the touchpad clicks poorly, or the case bulges and no longer sits flat.</p>"
            "<p><b>Cause:</b> Batteries wear out after two to three years. A bulging case means the "
            "battery is swollen, which is a safety risk.</p>"
            "<p><b>Swollen battery: stop using the laptop now.</b> Shut it down, unplug it, keep it "
            "away from heat and call the Service Desk for an urgent replacement.</p>"
            "<ol>"
            "<li>Run <b>powercfg /batteryreport</b> in Command Prompt and open the generated "
            "battery-report.html file. Compare <b>FULL CHARGE CAPACITY</b> with <b>DESIGN "
            "CAPACITY</b>.</li>"
            "<li>If full charge capacity is below 60% of design capacity, the battery qualifies for "
            "replacement under warranty.</li>"
            "<li>Check <b>Settings > System > Power & battery > Battery usage</b> for apps draining "
            "power in the background.</li>"
            "<li>On a Mac, see <b>System Settings > Battery > Battery Health</b>.</li>"
            "</ol>"
            "<p>Attach the battery report to your ticket so we can order a replacement.</p>"
        ),
    },
    "dock_external_monitors": {
        "short_description": "External monitors not detected on a USB-C docking station",
        "category": "Hardware",
        "keywords": ("dock", "monitor", "display", "usb-c", "displayport", "firmware"),
        "text": (
            "<p><b>Symptoms:</b> One or both monitors connected to the dock stay black with 'No "
            "Signal', monitors flicker, or displays swap places every time you reconnect.</p>"
            "<p><b>Cause:</b> Outdated dock firmware, a USB-C cable plugged into a port that does not "
            "support video, or Windows remembering an old display layout. Only the USB-C port marked "
            "with a lightning or DisplayPort symbol carries video.</p>"
            "<ol>"
            "<li>Unplug the dock's power supply for 30 seconds, reconnect it, then reconnect the "
            "laptop.</li>"
            "<li>Press <b>Win+P</b> and choose <b>Extend</b>.</li>"
            "<li>Open <b>Settings > System > Display</b>, click <b>Detect</b> under <b>Multiple "
            "displays</b> and arrange the screens.</li>"
            "<li>Update the dock firmware: open <b>Dell Command Update</b> (WD19/WD22 docks) or "
            "<b>Lenovo Vantage</b> (ThinkPad docks) with the dock connected and install all "
            "updates.</li>"
            "<li>Try a different DisplayPort or HDMI cable.</li>"
            "</ol>"
            "<p>MacBooks with M1 or M2 chips support only one external monitor without DisplayLink "
            "software. Request it from Self Service. Contact the Service Desk if the dock still fails "
            "after a firmware update.</p>"
        ),
    },
    "monitor_no_signal": {
        "short_description": "Monitor shows No Signal or stays black",
        "category": "Hardware",
        "keywords": ("monitor", "signal", "display", "cable", "input", "screen"),
        "text": (
            "<p><b>Symptoms:</b> A desk monitor shows a 'No Signal' or 'No DP signal from your device' "
            "message, goes to sleep immediately, or shows only a black screen with the power light "
            "amber.</p>"
            "<p><b>Cause:</b> The monitor is set to the wrong input source, a cable is loose, or the "
            "laptop did not wake the display after sleep.</p>"
            "<ol>"
            "<li>Press the monitor's menu button and open <b>Input Source</b>. Select the input that "
            "matches the cable: DisplayPort, HDMI or USB-C.</li>"
            "<li>Check both ends of the cable. DisplayPort plugs have a latch: press it to remove and "
            "push firmly until it clicks.</li>"
            "<li>Press <b>Win+P</b> and select <b>Extend</b>, or press <b>Win+Ctrl+Shift+B</b> to reset "
            "the display driver.</li>"
            "<li>Swap the cable with a neighbouring monitor to find out whether the cable or the "
            "monitor is faulty.</li>"
            "</ol>"
            "<p>If the monitor shows no on-screen menu at all or has lines or dead pixels, it needs "
            "replacement. Raise a ticket with the monitor's service tag from the label on the back.</p>"
        ),
    },
    "keyboard_wrong_characters": {
        "short_description": "Keyboard types wrong characters or some keys do not work",
        "category": "Hardware",
        "keywords": ("keyboard", "keys", "layout", "characters", "numlock", "language"),
        "text": (
            '<p><b>Symptoms:</b> Pressing @ types " instead, Y and Z are swapped, the number pad types '
            "arrows, or some letters produce numbers.</p>"
            "<p><b>Cause:</b> The keyboard layout changed, usually because <b>Alt+Shift</b> or "
            "<b>Win+Space</b> was pressed by accident and switched to another installed language. "
            "Letters typing numbers means the laptop's <b>Fn Lock</b> or <b>Num Lock</b> is on.</p>"
            "<ol>"
            "<li>Look at the language code next to the clock (for example <b>ENG US</b> or <b>DEU</b>) "
            "and click it to choose the correct layout.</li>"
            "<li>Remove layouts you do not use in <b>Settings > Time & language > Language & region</b>."
            "</li>"
            "<li>Press <b>Num Lock</b>, or <b>Fn+Num Lock</b> on smaller laptops, to switch the number "
            "pad back.</li>"
            "<li>If only certain keys fail on any layout, test with an external USB keyboard. Spilled "
            "liquid or crumbs under the keys are common causes.</li>"
            "</ol>"
            "<p>If the built-in keyboard is faulty, raise a hardware ticket. Liquid damage should be "
            "reported straight away, before it causes corrosion.</p>"
        ),
    },
    "wireless_mouse_lag": {
        "short_description": "Wireless mouse lags, jumps or disconnects",
        "category": "Hardware",
        "keywords": ("mouse", "wireless", "bluetooth", "receiver", "lag", "logitech"),
        "text": (
            "<p><b>Symptoms:</b> The pointer freezes, jumps across the screen or moves in small steps. "
            "The mouse may stop working for a few seconds and then recover.</p>"
            "<p><b>Cause:</b> Low batteries, interference from USB 3 ports and docks, or a Bluetooth "
            "connection that dropped while the laptop slept. Logitech mice from the catalog use a "
            "<b>Logi Bolt</b> USB receiver which is more reliable than Bluetooth.</p>"
            "<ol>"
            "<li>Replace the AA battery or charge the mouse for 15 minutes.</li>"
            "<li>Plug the Logi Bolt receiver into a port on the front of the dock or use a short USB "
            "extension so the receiver is closer to the mouse and away from USB 3 cables.</li>"
            "<li>If the mouse uses Bluetooth, remove it in <b>Settings > Bluetooth & devices</b> and "
            "pair it again.</li>"
            "<li>Open <b>Logi Options+</b> from Company Portal to update the mouse firmware.</li>"
            "<li>Try another surface. Glass and glossy desks confuse optical sensors.</li>"
            "</ol>"
            "<p>Faulty mice and keyboards are replaced from local stock. Request a new one in the "
            "Service Catalog rather than raising an incident.</p>"
        ),
    },
    "disk_space_low": {
        "short_description": "Free up space when the C: drive is full",
        "category": "Hardware",
        "keywords": ("disk", "space", "storage", "cleanup", "full", "drive"),
        "text": (
            "<p><b>Symptoms:</b> Windows warns 'Low Disk Space', the C: bar in File Explorer is red, "
            "updates fail, or Outlook and Teams behave strangely.</p>"
            "<p><b>Cause:</b> Downloads, OneDrive files kept on the device, old Windows update files "
            "and large Outlook caches fill the drive. Windows needs at least 15 GB free to "
            "install monthly updates.</p>"
            "<ol>"
            "<li>Open <b>Settings > System > Storage</b> and turn on <b>Storage Sense</b>. Click "
            "<b>Cleanup recommendations</b> and remove temporary files and old downloads.</li>"
            "<li>In the OneDrive folder, select large folders, right-click and choose <b>Free up "
            "space</b>. The files stay available online.</li>"
            "<li>Run <b>Disk Cleanup</b>, click <b>Clean up system files</b> and tick <b>Windows Update "
            "Cleanup</b>.</li>"
            "<li>Empty the Recycle Bin.</li>"
            "<li>Use <b>Settings > Apps > Installed apps</b>, sorted by size, to remove software you no "
            "longer need.</li>"
            "</ol>"
            "<p>If less than 10 GB is free after cleanup, contact the Service Desk. Engineering laptops "
            "with 256 GB drives can be upgraded.</p>"
        ),
    },
    "disk_smart_failure": {
        "short_description": "Hard disk SMART error or failing drive warning",
        "category": "Hardware",
        "keywords": ("disk", "smart", "ssd", "failure", "drive", "backup"),
        "text": (
            "<p><b>Symptoms:</b> At start-up the laptop shows <b>SMART Hard Disk Error 301</b> or "
            "<b>Hard Disk 1 (3F1)</b>, Windows reports 'Windows detected a hard disk problem', files "
            "fail to open with 'The request could not be performed because of an I/O device error', or "
            "the laptop freezes for several seconds.</p>"
            "<p><b>Cause:</b> The drive's self-monitoring (SMART) has detected worn or failing storage. "
            "Data loss can follow within days.</p>"
            "<ol>"
            "<li>Stop installing or copying large amounts of data to the laptop.</li>"
            "<li>Make sure OneDrive shows a green tick and that the Desktop, Documents and Pictures "
            "folders are backed up under <b>OneDrive > Settings > Sync and back up > Manage "
            "back up</b>.</li>"
            "<li>Copy any files stored outside OneDrive, such as in <b>C:\\Data</b>, to OneDrive or "
            "a network share.</li>"
            "<li>Run the vendor diagnostics from the boot menu (<b>F12 > Diagnostics</b> on Dell, "
            "<b>F10</b> on Lenovo) and note the error code.</li>"
            "</ol>"
            "<p>Raise a high-priority hardware ticket with the error code. Drives under warranty are "
            "replaced by the vendor; we will reimage the laptop afterwards.</p>"
        ),
    },
    "bsod_memory_management": {
        "short_description": "Blue screen MEMORY_MANAGEMENT or random restarts",
        "category": "Hardware",
        "keywords": ("bsod", "blue", "screen", "memory", "crash", "ram"),
        "text": (
            "<p><b>Symptoms:</b> The laptop shows a blue screen with 'Your device ran into a problem and "
            "needs to restart' and a stop code such as <b>MEMORY_MANAGEMENT</b>, "
            "<b>PAGE_FAULT_IN_NONPAGED_AREA</b> or <b>IRQL_NOT_LESS_OR_EQUAL</b>, then restarts.</p>"
            "<p><b>Cause:</b> Faulty memory modules, a bad driver, or occasionally overheating. A single "
            "crash after an update is not unusual; repeated crashes need investigation.</p>"
            "<ol>"
            "<li>Write down or photograph the stop code and the time of the crash.</li>"
            "<li>Install all updates from <b>Company Portal</b> and the vendor update tool, then restart."
            "</li>"
            "<li>Press <b>Win+R</b>, run <b>mdsched.exe</b> and choose <b>Restart now and check for "
            "problems</b>. The Windows Memory Diagnostic runs before Windows starts.</li>"
            "<li>After sign-in, open <b>Event Viewer > Windows Logs > System</b> and look for "
            "<b>MemoryDiagnostics-Results</b>.</li>"
            "</ol>"
            "<p>If the memory test reports errors or blue screens happen more than once a week, raise a "
            "hardware ticket with the stop codes. Save work often in the meantime.</p>"
        ),
    },
    "laptop_overheating": {
        "short_description": "Laptop is hot, loud or slow because of high CPU use",
        "category": "Hardware",
        "keywords": ("cpu", "overheating", "fan", "slow", "performance", "heat"),
        "text": (
            "<p><b>Symptoms:</b> The fan runs loudly all the time, the underside is too hot to rest on "
            "your lap, and applications become slow or freeze for seconds at a time.</p>"
            "<p><b>Cause:</b> A process is using the CPU continuously, the air vents are blocked, or "
            "the laptop is throttling because dust has built up inside.</p>"
            "<ol>"
            "<li>Press <b>Ctrl+Shift+Esc</b> to open Task Manager and sort the <b>Processes</b> tab by "
            "<b>CPU</b>. Note any process above 50% for more than a minute.</li>"
            "<li>Browser tabs with heavy pages and stuck Teams or OneDrive processes are common. Close "
            "them or use <b>End task</b>.</li>"
            "<li>If <b>Antimalware Service Executable</b> is high, a scan is running. Let it finish.</li>"
            "<li>Use the laptop on a hard, flat surface so the vents on the bottom and sides are "
            "clear.</li>"
            "<li>Restart the laptop at least once a week.</li>"
            "</ol>"
            "<p>If the fan stays loud with CPU below 20%, or the laptop shuts down by itself, raise a "
            "hardware ticket. It may need cleaning or a new fan.</p>"
        ),
    },
    "webcam_not_working": {
        "short_description": "Laptop camera not working in Teams or Zoom",
        "category": "Hardware",
        "keywords": ("camera", "webcam", "video", "privacy", "shutter", "teams"),
        "text": (
            "<p><b>Symptoms:</b> Meeting apps show a black video tile, 'We can't find a camera', or "
            "'Your camera is being used by another application'.</p>"
            "<p><b>Cause:</b> Most business laptops have a physical privacy shutter or a camera "
            "kill-switch key. Windows privacy settings or another app holding the camera are the next "
            "most common causes.</p>"
            "<ol>"
            "<li>Slide the privacy shutter above the screen open. On some Dell models press "
            "<b>F9</b>, and on Lenovo models press <b>F8</b>, to switch the camera on.</li>"
            "<li>Open <b>Settings > Privacy & security > Camera</b> and check that <b>Camera access</b> "
            "and <b>Let desktop apps access your camera</b> are both on.</li>"
            "<li>Close other apps that may use the camera, including the Windows Camera app and "
            "browser tabs with other meetings.</li>"
            "<li>In Teams open <b>Settings > Devices > Camera</b> and select <b>Integrated "
            "Camera</b>, not a dock or virtual camera.</li>"
            "<li>If the camera is missing from Device Manager, restart the laptop.</li>"
            "</ol>"
            "<p>Contact the Service Desk if the camera is missing after a restart.</p>"
        ),
    },
    "hardware_refresh_loaner": {
        "short_description": "Laptop replacement, refresh cycle and loaner devices",
        "category": "Hardware",
        "keywords": ("refresh", "replacement", "loaner", "laptop", "warranty", "lifecycle"),
        "text": (
            "<p>Company laptops are replaced every four years, or earlier if they fail outside warranty. "
            "This article explains what to expect.</p>"
            "<ul>"
            "<li><b>Refresh:</b> you receive an email eight weeks before your refresh date with a link "
            "to book a swap appointment at your site's IT bar.</li>"
            "<li><b>Broken laptops:</b> raise a hardware incident. If the repair will take more than "
            "one working day, we issue a loaner.</li>"
            "<li><b>Loaners:</b> loaners are standard builds. Your OneDrive files and settings sync "
            "after sign-in, but locally installed tools must be reinstalled from Company Portal.</li>"
            "</ul>"
            "<ol>"
            "<li>Before a swap, confirm OneDrive shows all files as synced.</li>"
            "<li>Sign out of browser profiles and export any local bookmarks.</li>"
            "<li>Bring the charger and any dock adapters you were issued.</li>"
            "</ol>"
            "<p>Old laptops are securely wiped and recycled. Do not give company devices to colleagues "
            "or keep them after you receive a replacement. Lost or damaged chargers can be ordered in "
            "the Service Catalog.</p>"
            "<p>Contact the Service Desk if your refresh email has not arrived and your laptop is more than "
            "four years old.</p>"
        ),
    },
    "usb_c_charging": {
        "short_description": "Laptop not charging or shows slow charger warning",
        "category": "Hardware",
        "keywords": ("charging", "usb-c", "charger", "power", "adapter", "watt"),
        "text": (
            "<p><b>Symptoms:</b> The battery icon shows 'Plugged in, not charging', the BIOS warns "
            "'The AC power adapter wattage and type cannot be determined' or 'Slow charger', or the "
            "battery drains while connected to the dock.</p>"
            "<p><b>Cause:</b> The charger or dock supplies less power than the laptop needs. Most "
            "business laptops need a 65 W charger and performance models need 90-130 W. Phone chargers "
            "and many monitor USB-C ports provide only 15-45 W.</p>"
            "<ol>"
            "<li>Check the wattage printed on the charger brick.</li>"
            "<li>Connect the laptop's original charger directly and see whether charging starts.</li>"
            "<li>On a dock, make sure the dock's own power supply is plugged in and is the correct "
            "model for the dock.</li>"
            "<li>Inspect the USB-C plug and port for bent pins or dirt. Do not use a damaged "
            "charger.</li>"
            "<li>Restart the laptop while connected to power.</li>"
            "</ol>"
            "<p>Replacement chargers are ordered through the Service Catalog. If charging fails with "
            "a known good charger, raise a hardware incident.</p>"
            "<p>If the laptop will not charge from any charger and the battery is below 10%, call the "
            "Service Desk so we can arrange a loaner.</p>"
        ),
    },
    "headset_microphone": {
        "short_description": "USB headset microphone or sound not working",
        "category": "Hardware",
        "keywords": ("headset", "microphone", "audio", "jabra", "sound", "usb"),
        "text": (
            "<p><b>Symptoms:</b> Colleagues cannot hear you, sound still plays from the laptop speakers "
            "after connecting the headset, or the headset is not listed in sound settings.</p>"
            "<p><b>Cause:</b> Windows has chosen another device as the default, the headset's "
            "physical mute is on, or the USB dongle needs a firmware update.</p>"
            "<ol>"
            "<li>Check the mute button on the headset cable or boom arm. On Jabra Evolve headsets "
            "the boom is muted when it is raised.</li>"
            "<li>Open <b>Settings > System > Sound</b> and select the headset under both "
            "<b>Output</b> and <b>Input</b>. Speak and watch the input volume bar move.</li>"
            "<li>Right-click the speaker icon and open <b>Sound settings > More sound settings</b>. On "
            "the <b>Recording</b> tab, set the headset as <b>Default Device</b> and <b>Default "
            "Communication Device</b>.</li>"
            "<li>Install <b>Jabra Direct</b> or <b>Logi Tune</b> from Company Portal and apply any "
            "firmware updates.</li>"
            "<li>Plug the headset directly into the laptop rather than into the monitor or dock.</li>"
            "</ol>"
            "<p>Replacement headsets can be requested in the Service Catalog.</p>"
        ),
    },
    # ----- Software --------------------------------------------------------
    "company_portal_install": {
        "short_description": "Install approved software from Company Portal or Self Service",
        "category": "Software",
        "keywords": ("install", "software", "company", "portal", "self", "service"),
        "text": (
            "<p>Standard users cannot install software from the internet. Approved applications are "
            "available for one-click installation instead.</p>"
            "<ol>"
            "<li><b>Windows:</b> open <b>Company Portal</b> from the Start menu, go to <b>Apps</b>, "
            "search for the application and click <b>Install</b>. Progress shows under <b>Downloads "
            "and updates</b>.</li>"
            "<li><b>Mac:</b> open <b>Self Service</b> from the Applications folder, search and click "
            "<b>Install</b>.</li>"
            "<li>Some licensed applications such as Visio or Adobe Acrobat Pro appear only after your "
            "licence request is approved in the Service Catalog.</li>"
            "<li>If an installation fails, click the app and check the error code shown in the "
            "details, for example <b>0x87D1041C</b> (not detected after install) or <b>0x80070643</b> "
            "(installer failed).</li>"
            "</ol>"
            "<p>To request software that is not in the portal, raise a software request with the name, "
            "vendor and business reason. New software goes through a security and licence review, "
            "which typically takes five to ten working days.</p>"
        ),
    },
    "windows_update_failed": {
        "short_description": "Windows Update fails with 0x80070002 or 0x800f0922",
        "category": "Software",
        "keywords": ("windows", "update", "0x80070002", "0x800f0922", "patch"),
        "text": (
            "<p><b>Symptoms:</b> <b>Settings > Windows Update</b> shows 'Install error - 0x80070002' "
            "or '0x800f0922', the same update fails every night, or the laptop shows 'Undoing changes "
            "made to your computer' at restart.</p>"
            "<p><b>Cause:</b> 0x80070002 means downloaded update files are missing or damaged. "
            "0x800f0922 usually means the laptop could not reach the update service over VPN, or the "
            "system reserved partition is full.</p>"
            "<ol>"
            "<li>Connect to the office network or home internet with the VPN disconnected, since "
            "updates download directly from Microsoft.</li>"
            "<li>Make sure at least 15 GB is free on C:.</li>"
            "<li>Open <b>Settings > System > Troubleshoot > Other troubleshooters</b> and run "
            "<b>Windows Update</b>.</li>"
            "<li>Restart, then click <b>Check for updates</b> again.</li>"
            "<li>If it still fails, run <b>sfc /scannow</b> and <b>DISM /Online /Cleanup-Image "
            "/RestoreHealth</b> from an administrator prompt via Admin By Request.</li>"
            "</ol>"
            "<p>Laptops more than 30 days behind on security updates are marked non-compliant and "
            "lose access to email. Contact the Service Desk before that happens.</p>"
        ),
    },
    "browser_cache_clear": {
        "short_description": "Clear browser cache and cookies to fix web app problems",
        "category": "Software",
        "keywords": ("browser", "cache", "cookies", "chrome", "edge", "login"),
        "text": (
            "<p><b>Symptoms:</b> A web application shows an old version of a page, buttons do nothing, "
            "you are sent in a loop between the login page and the app, or you see 'ERR_TOO_MANY_"
            "REDIRECTS' or 'HTTP 400 Bad Request - Request Header Or Cookie Too Large'.</p>"
            "<p><b>Cause:</b> Cached scripts or an outdated sign-in cookie conflict with the current "
            "version of the application.</p>"
            "<ol>"
            "<li>Open a private window (<b>Ctrl+Shift+N</b> in Chrome, <b>Ctrl+Shift+P</b> in Edge) "
            "and try the site. If it works there, the cache is the problem.</li>"
            "<li>In Chrome or Edge press <b>Ctrl+Shift+Delete</b>.</li>"
            "<li>Set <b>Time range</b> to <b>All time</b>, tick <b>Cookies and other site data</b> and "
            "<b>Cached images and files</b>, and click <b>Clear data</b>.</li>"
            "<li>To clear only one site, click the padlock or settings icon left of the address bar, "
            "choose <b>Site settings</b> and then <b>Delete data</b>.</li>"
            "<li>Close all browser windows and sign in again.</li>"
            "</ol>"
            "<p>If the problem also happens in a private window, report it to the Service Desk with "
            "the URL and a screenshot, as the application itself may be at fault.</p>"
        ),
    },
    "excel_not_responding": {
        "short_description": "Excel freezes or shows Not Responding",
        "category": "Software",
        "keywords": ("excel", "freeze", "responding", "addins", "workbook", "office"),
        "text": (
            "<p><b>Symptoms:</b> Excel's title bar shows '(Not Responding)' when opening, saving or "
            "scrolling a workbook, or Excel freezes when you copy and paste.</p>"
            "<p><b>Cause:</b> Large workbooks with volatile formulas (OFFSET, INDIRECT, NOW), links to "
            "other files on unavailable network drives, COM add-ins, or graphics acceleration "
            "problems.</p>"
            "<ol>"
            "<li>Start Excel in safe mode with <b>excel.exe /safe</b> from <b>Win+R</b>. If it works, "
            "disable add-ins under <b>File > Options > Add-ins > COM Add-ins > Go</b>.</li>"
            "<li>Check <b>Data > Edit Links</b> for links to files that no longer exist and use "
            "<b>Break Link</b> where appropriate.</li>"
            "<li>Switch calculation to manual while editing: <b>Formulas > Calculation Options > "
            "Manual</b>, then press <b>F9</b> to recalculate.</li>"
            "<li>Under <b>File > Options > Advanced > Display</b>, tick <b>Disable hardware graphics "
            "acceleration</b>.</li>"
            "<li>Save very large files as <b>.xlsb</b> to reduce size.</li>"
            "</ol>"
            "<p>If every workbook freezes, try an Office Quick Repair. Raise a ticket if the problem "
            "continues.</p>"
        ),
    },
    "office_unlicensed": {
        "short_description": "Microsoft 365 shows Unlicensed Product or Account Error",
        "category": "Software",
        "keywords": ("office", "licence", "activation", "unlicensed", "microsoft"),
        "text": (
            "<p><b>Symptoms:</b> Word, Excel or PowerPoint shows a red bar reading 'UNLICENSED PRODUCT' "
            "or 'ACCOUNT NOTICE: There's a problem with your account', and editing is disabled.</p>"
            "<p><b>Cause:</b> Office cannot confirm your licence. This happens when you are signed in "
            "with a personal Microsoft account, after a name or email change, or after the laptop has "
            "been offline for more than 30 days.</p>"
            "<ol>"
            "<li>In any Office app open <b>File > Account</b> and check the account under <b>User "
            "Information</b>. It must be your work address.</li>"
            "<li>Click <b>Sign out</b>, close all Office apps, then open Word and sign in with your "
            "work account.</li>"
            "<li>Open <b>Settings > Accounts > Access work or school</b> and remove any personal "
            "accounts listed.</li>"
            "<li>Click <b>Update License</b> on <b>File > Account</b> if it is shown.</li>"
            "</ol>"
            "<p>If the error remains, your licence assignment may have been removed. Contact the "
            "Service Desk so we can check that your account has the Microsoft 365 E3 licence.</p>"
        ),
    },
    "office_repair": {
        "short_description": "Repair Microsoft 365 apps with Quick Repair or Online Repair",
        "category": "Software",
        "keywords": ("office", "repair", "crash", "reinstall", "word", "excel"),
        "text": (
            "<p>Use a repair when several Office applications crash on start, show 'Something went "
            "wrong' with error codes such as <b>30088-26</b> or <b>0xc0000142</b>, or when menus and "
            "templates are missing after an update.</p>"
            "<ol>"
            "<li>Save your work and close all Office applications, including Outlook and Teams.</li>"
            "<li>Open <b>Settings > Apps > Installed apps</b>, find <b>Microsoft 365 Apps for "
            "enterprise</b>, click the three dots and choose <b>Modify</b>.</li>"
            "<li>Choose <b>Quick Repair</b> first. It takes about five minutes and works offline.</li>"
            "<li>If the problem continues, repeat and choose <b>Online Repair</b>. This downloads a "
            "full copy of Office, takes 30-60 minutes and needs a good internet connection.</li>"
            "<li>Restart the laptop and sign in to Office again.</li>"
            "</ol>"
            "<p>Online Repair resets some Office preferences but does not touch your documents, "
            "mailbox or OneDrive files. If it fails or errors continue, contact the Service Desk with "
            "the exact error code.</p>"
        ),
    },
    "adobe_acrobat_sign_in": {
        "short_description": "Adobe Acrobat Pro asks you to sign in or reverts to Reader",
        "category": "Software",
        "keywords": ("adobe", "acrobat", "licence", "pdf", "sign", "reader"),
        "text": (
            "<p><b>Symptoms:</b> Acrobat opens in Reader mode and editing tools show 'Upgrade now', or "
            "you see 'Your trial has expired' or 'You don't have access to this app'.</p>"
            "<p><b>Cause:</b> Acrobat Pro is licensed per named user. Acrobat only shows Pro features "
            "after you sign in with your company Adobe ID, which uses single sign-on. Signing in with a "
            "personal Adobe account activates a trial instead.</p>"
            "<ol>"
            "<li>In Acrobat open <b>Help > Sign Out</b>, then <b>Sign In</b>.</li>"
            "<li>Enter your work email address and choose <b>Company or School Account</b> if asked. "
            "You are redirected to the company sign-in page.</li>"
            "<li>Restart Acrobat. The title bar should show <b>Adobe Acrobat Pro</b>.</li>"
            "<li>If it still shows Reader, go to <b>Menu > Preferences > General</b> and check "
            "<b>Default PDF handler</b>.</li>"
            "</ol>"
            "<p>If you see 'You don't have access', you do not have a licence yet. Request Adobe "
            "Acrobat Pro in the Service Catalog; approval comes from your cost-centre manager.</p>"
        ),
    },
    "sap_gui_partner_not_reached": {
        "short_description": "SAP GUI error: Partner not reached or connection refused",
        "category": "Software",
        "keywords": ("sap", "gui", "logon", "partner", "connection", "saplogon"),
        "text": (
            "<p><b>Symptoms:</b> Double-clicking a system in SAP Logon shows <b>SAP GUI for Windows: "
            "Partner 'sapprd01:3200' not reached</b> or <b>WSAECONNREFUSED: Connection refused</b>.</p>"
            "<p><b>Cause:</b> SAP GUI cannot reach the application server. Remote users must be on the "
            "VPN. The error also appears when the logon entries are outdated after a system move, or "
            "when SAP is down for the weekly maintenance window (Sunday 02:00-06:00).</p>"
            "<ol>"
            "<li>Confirm the VPN is connected and that you can open the intranet.</li>"
            "<li>In SAP Logon, right-click the system and check <b>Properties</b>. Production should "
            "use the message server group <b>PUBLIC</b>, not a hard-coded application server.</li>"
            "<li>Close SAP Logon and open <b>Company Portal</b>. Reinstall <b>SAP GUI Configuration</b> "
            "to refresh the central <b>SAPUILandscape.xml</b> file.</li>"
            "<li>Check the IT status page for planned SAP downtime.</li>"
            "</ol>"
            "<p>If colleagues in the same office can log on but you cannot, raise a ticket. If nobody "
            "can, call the Service Desk, as this may be a major incident.</p>"
        ),
    },
    "concur_expense_errors": {
        "short_description": "Concur expense report will not submit or receipts missing",
        "category": "Software",
        "keywords": ("concur", "expense", "receipts", "submit", "report", "approver"),
        "text": (
            "<p><b>Symptoms:</b> Concur shows a red exception such as 'Receipt required for expenses "
            "over 75.00', 'The expense type is not valid for this cost centre' or 'No approver found', "
            "or receipts photographed in the app do not appear.</p>"
            "<p><b>Cause:</b> Most messages are policy checks rather than technical faults. Missing "
            "receipts usually have not finished uploading from the mobile app.</p>"
            "<ol>"
            "<li>Open the report and click each line with a red icon to read the exception.</li>"
            "<li>Attach receipts from <b>Available Receipts</b>, or forward emailed receipts from your "
            "work address to the company receipts mailbox.</li>"
            "<li>In the SAP Concur mobile app, open <b>Expenses</b> and check whether receipts show "
            "'Processing'. Keep the app open on Wi-Fi until they upload.</li>"
            "<li>For 'No approver found', check <b>Profile > Profile Settings > Expense Approvers</b>. "
            "Your manager is set automatically from Workday.</li>"
            "</ol>"
            "<p>Policy questions go to the Finance expenses team. Contact the Service Desk only for "
            "errors such as blank pages, failed logins or missing menus.</p>"
        ),
    },
    "workday_time_entry": {
        "short_description": "Workday: cannot submit time or see the Time tile",
        "category": "Software",
        "keywords": ("workday", "timesheet", "time", "submit", "hr", "tile"),
        "text": (
            "<p><b>Symptoms:</b> The <b>Time</b> app is missing from the Workday home page, "
            "<b>Enter Time</b> shows 'You do not have access to this task', or submitted time stays "
            "'In Progress' for several days.</p>"
            "<p><b>Cause:</b> Time tracking is assigned by worker type and location. New joiners and "
            "people who recently changed job or manager may not be enrolled yet. Submitted time waits "
            "for your manager in their Workday inbox.</p>"
            "<ol>"
            "<li>Search for <b>Enter Time</b> in the Workday search bar instead of using the tile.</li>"
            "<li>Open your profile, then <b>Job > Worker History</b>, to check for a recent change "
            "that is still pending.</li>"
            "<li>Open a submitted week and click <b>Process History</b> to see who the time is waiting "
            "on.</li>"
            "<li>Sign out, clear your browser cache and sign in again through the Workday tile on the "
            "intranet.</li>"
            "</ol>"
            "<p>Enrolment and approval questions are handled by HR Operations through the HR portal. "
            "Raise an IT ticket only if Workday does not load or shows a technical error page.</p>"
        ),
    },
    "salesforce_lightning_page": {
        "short_description": "Salesforce page will not load or shows Insufficient Privileges",
        "category": "Software",
        "keywords": ("salesforce", "lightning", "privileges", "crm", "report"),
        "text": (
            "<p><b>Symptoms:</b> A Salesforce record page spins forever, you see 'Sorry to interrupt. "
            "This page has an error', or a report shows 'Insufficient Privileges: You do not have the "
            "level of access necessary to perform the operation you requested'.</p>"
            "<p><b>Cause:</b> Lightning pages fail when cached components are out of date after a "
            "release. Insufficient Privileges means your profile or permission set does not include "
            "the record type, report folder or object.</p>"
            "<ol>"
            "<li>Reload the page with <b>Ctrl+F5</b>.</li>"
            "<li>Open your avatar, then <b>Settings > Advanced User Details</b>, and check that "
            "<b>Disable secure and persistent browser caching</b> is not set by an old extension.</li>"
            "<li>Disable browser extensions that inject into pages, such as grammar or CRM "
            "sidebars.</li>"
            "<li>For Insufficient Privileges, copy the record URL and ask your sales operations "
            "manager whether you should have access.</li>"
            "</ol>"
            "<p>Access changes need sales operations approval and are made by the Applications team. "
            "Include the URL and your manager's approval in the request.</p>"
        ),
    },
    "tableau_extract_refresh": {
        "short_description": "Tableau dashboard shows old data or extract refresh failed",
        "category": "Software",
        "keywords": ("tableau", "dashboard", "extract", "refresh", "data", "report"),
        "text": (
            "<p><b>Symptoms:</b> A Tableau dashboard shows yesterday's or last week's numbers, the "
            "'Data last updated' label has not changed, or the owner received an email 'Extract "
            "refresh failed'.</p>"
            "<p><b>Cause:</b> Scheduled extract refreshes fail when the embedded database password has "
            "expired, the source table changed, or the refresh took longer than the two-hour "
            "limit.</p>"
            "<ol>"
            "<li>In Tableau Server open the data source and click the <b>Extract Refreshes</b> tab. "
            "Note the last successful run.</li>"
            "<li>Open <b>Connections</b> and click <b>Edit Connection</b>. If the error says <b>Login "
            "failed for user</b> or <b>ORA-01017</b>, update the embedded credentials.</li>"
            "<li>If the error mentions a missing column, republish the workbook from Tableau Desktop "
            "after updating the data source.</li>"
            "<li>Click <b>Refresh Extracts > Run Now</b> to retry.</li>"
            "</ol>"
            "<p>Only the data source owner can edit credentials. If the owner has left, raise a "
            "ticket for the Applications team to reassign ownership.</p>"
        ),
    },
    "docusign_envelope_issues": {
        "short_description": "DocuSign envelope not received, expired or stuck",
        "category": "Software",
        "keywords": ("docusign", "envelope", "signature", "contract", "expired"),
        "text": (
            "<p><b>Symptoms:</b> A recipient says they never got the signing email, an envelope shows "
            "<b>Expired</b> or <b>Voided</b>, or a completed document did not come back to you.</p>"
            "<p><b>Cause:</b> Signing emails are often caught by the recipient's spam filter. Envelopes "
            "expire after 120 days by default, and envelopes with a wrong routing order wait for a "
            "signer who has not been notified.</p>"
            "<ol>"
            "<li>In DocuSign open <b>Manage > Sent</b>, find the envelope and check its status and "
            "history.</li>"
            "<li>To resend, open the envelope and click <b>Resend</b>. Ask the recipient to check spam "
            "for mail from <b>dse@docusign.net</b>.</li>"
            "<li>To fix a wrong email address, click <b>Correct</b>, update the recipient and click "
            "<b>Resend</b>.</li>"
            "<li>Expired envelopes cannot be reopened. Use <b>More > Copy</b> to send a new one.</li>"
            "</ol>"
            "<p>Legal templates are managed by the Legal team. Contact the Service Desk if you cannot "
            "log in to DocuSign or the <b>Send an Envelope</b> button is missing.</p>"
        ),
    },
    "windows_temporary_profile": {
        "short_description": "Signed in with a temporary profile: desktop and files missing",
        "category": "Software",
        "keywords": ("profile", "temporary", "windows", "desktop", "signin"),
        "text": (
            "<p><b>Symptoms:</b> After signing in, Windows shows 'You've been signed in with a "
            "temporary profile' or 'We can't sign in to your account'. Your desktop, wallpaper and "
            "browser bookmarks are missing.</p>"
            "<p><b>Cause:</b> Windows could not load your user profile, usually because it was locked "
            "by antivirus or an update during the last shutdown, or because the profile folder is "
            "corrupt. Your files are still on the disk.</p>"
            "<ol>"
            "<li>Do not save any work in the temporary profile. It is deleted when you sign out.</li>"
            "<li>Restart the laptop (use <b>Restart</b>, not Shut down) and sign in again. This fixes "
            "most cases.</li>"
            "<li>If the message returns, check that OneDrive has synced your Desktop and Documents "
            "folders by signing in to <b>OneDrive on the web</b>.</li>"
            "</ol>"
            "<p>If the temporary profile appears after two restarts, contact the Service Desk. The fix "
            "involves editing the <b>ProfileList</b> registry key and must be done by a technician; "
            "do not delete folders under C:\\Users yourself.</p>"
        ),
    },
    "jetbrains_license": {
        "short_description": "Activate JetBrains IDEs with the company licence server",
        "category": "Software",
        "keywords": ("jetbrains", "intellij", "pycharm", "licence", "activation", "ide"),
        "text": (
            "<p><b>Symptoms:</b> IntelliJ IDEA, PyCharm or another JetBrains IDE opens the "
            "<b>Manage Licenses</b> window, shows 'Your license has expired', or reports "
            "'No licenses available for this product'.</p>"
            "<p><b>Cause:</b> Company licences are floating licences served by the JetBrains License "
            "Vault. An IDE that was activated with a personal JetBrains account or a trial will not use "
            "the company pool. A licence is released after 20 minutes of the IDE being closed.</p>"
            "<ol>"
            "<li>In the IDE open <b>Help > Register</b> (or <b>Manage Licenses</b>).</li>"
            "<li>Choose <b>Activate license</b> and select <b>License server</b>.</li>"
            "<li>Enter <b>https://jetbrains-license.example.com</b> and click <b>Activate</b>.</li>"
            "<li>If asked, sign in with your company account through single sign-on.</li>"
            "</ol>"
            "<p>'No licenses available' means all seats are in use or you have not been granted one. "
            "Request a JetBrains licence in the Service Catalog. Engineering managers approve these "
            "requests.</p>"
        ),
    },
    "github_ssh_authentication": {
        "short_description": "GitHub Enterprise: Permission denied (publickey) or SSO errors",
        "category": "Software",
        "keywords": ("github", "ssh", "publickey", "token", "git", "sso"),
        "text": (
            "<p><b>Symptoms:</b> <b>git clone</b> or <b>git push</b> fails with 'Permission denied "
            "(publickey)', 'remote: The 'example' organization has enabled or enforced SAML SSO', or "
            "'remote: Invalid username or token'.</p>"
            "<p><b>Cause:</b> GitHub Enterprise requires SSH keys or personal access tokens that are "
            "authorised for single sign-on. Password authentication over HTTPS is disabled.</p>"
            "<ol>"
            "<li>Run <b>ssh -T git@github.example.com</b>. A working key returns 'Hi username! You've "
            "successfully authenticated'.</li>"
            "<li>If not, create a key with <b>ssh-keygen -t ed25519 -C your.name@example.com</b> and "
            "add the <b>.pub</b> file under <b>Settings > SSH and GPG keys > New SSH key</b>.</li>"
            "<li>Next to the key, click <b>Configure SSO</b> and <b>Authorize</b> it for the "
            "organisation.</li>"
            "<li>For HTTPS, create a fine-grained token under <b>Settings > Developer settings</b> and "
            "authorise it for SSO in the same way.</li>"
            "</ol>"
            "<p>If you cannot see the organisation at all, request GitHub Enterprise access through "
            "the Service Catalog.</p>"
        ),
    },
    "macos_update_self_service": {
        "short_description": "Update macOS on a company Mac",
        "category": "Software",
        "keywords": ("macos", "update", "mac", "deferral", "self", "service"),
        "text": (
            "<p>Company Macs must run a supported macOS version. Security updates are enforced 14 days "
            "after release, and a full-screen reminder appears when the deadline is close.</p>"
            "<ol>"
            "<li>Save your work and connect the Mac to power. Updates need at least 50% battery and "
            "25 GB free space.</li>"
            "<li>Open <b>System Settings > General > Software Update</b> and click <b>Update "
            "Now</b>.</li>"
            "<li>If it shows 'The requested version of macOS is not available', open <b>Self "
            "Service</b>, go to <b>Updates</b> and run <b>macOS Update</b>.</li>"
            "<li>The Mac restarts one or more times. Allow 30-45 minutes.</li>"
            "<li>After the update, check that <b>GlobalProtect</b> and <b>Microsoft Defender</b> are "
            "running and approve any new permission prompts.</li>"
            "</ol>"
            "<p>You can defer a major upgrade up to three times if you have an important deadline. If "
            "the update keeps failing with 'An error occurred while preparing the update', contact "
            "the Service Desk.</p>"
        ),
    },
    # ----- Accounts and Access ---------------------------------------------
    "password_reset_self_service": {
        "short_description": "Reset your password with self-service password reset",
        "category": "Accounts and Access",
        "keywords": ("password", "reset", "self", "service", "forgotten", "sspr"),
        "text": (
            "<p>You can reset a forgotten or expired password yourself, 24 hours a day, without calling "
            "the Service Desk. You must have registered at least two methods (authenticator app, "
            "mobile phone or personal email) beforehand.</p>"
            "<ol>"
            "<li>From any browser, including your phone, go to <b>https://passwordreset.example.com"
            "</b>.</li>"
            "<li>Enter your work email address and the characters shown in the picture.</li>"
            "<li>Complete two verification steps, for example an Okta Verify push and a text message "
            "code.</li>"
            "<li>Choose a new password that meets the policy and click <b>Finish</b>.</li>"
            "<li>On a Windows laptop away from the office, connect to the VPN from the sign-in screen "
            "using the network icon so the laptop learns the new password. Otherwise lock and unlock "
            "the laptop once you are back on the office network.</li>"
            "</ol>"
            "<p>After a reset, update the password on your phone's mail app and any saved Wi-Fi "
            "profiles. If you have not registered methods, call the Service Desk; you will need your "
            "employee ID and your manager's name.</p>"
        ),
    },
    "account_locked_out": {
        "short_description": "Your account is locked out",
        "category": "Accounts and Access",
        "keywords": ("account", "locked", "lockout", "password", "attempts"),
        "text": (
            "<p><b>Symptoms:</b> Sign-in fails with 'Your account has been locked. Contact your support "
            "person to unlock it, then try again' or 'The referenced account is currently locked out "
            "and may not be logged on to'.</p>"
            "<p><b>Cause:</b> After 10 failed sign-in attempts the account locks for 30 minutes. "
            "Repeated lockouts are usually caused by a device still using your old password, such as a "
            "phone mail app, a mapped drive with saved credentials, or a scheduled task.</p>"
            "<ol>"
            "<li>Wait 30 minutes; the lock clears automatically. You can also unlock at "
            "<b>https://passwordreset.example.com</b> by choosing <b>I know my password, but still "
            "can't sign in</b>.</li>"
            "<li>Update or remove the old password on your phone, tablet and any second computer.</li>"
            "<li>On Windows, open <b>Credential Manager</b> and remove saved entries for file servers "
            "and <b>MicrosoftOffice</b>.</li>"
            "<li>Turn off Wi-Fi on old devices that still have CORP-GUEST credentials saved.</li>"
            "</ol>"
            "<p>If you are locked out again within an hour, call the Service Desk. We can see which "
            "device is sending the bad password.</p>"
        ),
    },
    "mfa_new_phone": {
        "short_description": "Move Okta Verify to a new phone",
        "category": "Accounts and Access",
        "keywords": ("mfa", "okta", "verify", "phone", "authenticator", "new"),
        "text": (
            "<p>Okta Verify does not transfer automatically when you change phones. Set it up on the "
            "new phone <b>before</b> you wipe or return the old one.</p>"
            "<ol>"
            "<li>Install <b>Okta Verify</b> on the new phone from the App Store or Google Play.</li>"
            "<li>On a computer, sign in to <b>https://example.okta.com</b>, click your name and open "
            "<b>Settings > Security Methods</b>.</li>"
            "<li>Next to <b>Okta Verify</b> click <b>Set up another</b> and verify with the old "
            "phone.</li>"
            "<li>Scan the QR code with the new phone and turn on <b>Push notifications</b> and "
            "<b>Face ID/biometrics</b> when asked.</li>"
            "<li>Approve a test sign-in from the new phone, then click <b>Remove</b> next to the old "
            "device.</li>"
            "</ol>"
            "<p>If you no longer have the old phone, call the Service Desk. After verifying your "
            "identity we issue a one-time temporary passcode valid for 60 minutes so you can enrol "
            "the new device. For security, this cannot be done by email or chat.</p>"
        ),
    },
    "mfa_push_not_received": {
        "short_description": "MFA push notifications are not arriving on your phone",
        "category": "Accounts and Access",
        "keywords": ("mfa", "push", "notification", "okta", "phone", "approve"),
        "text": (
            "<p><b>Symptoms:</b> The sign-in page says 'Push notification sent' but nothing appears on "
            "your phone, or the notification arrives minutes later after the sign-in has timed "
            "out.</p>"
            "<p><b>Cause:</b> Notifications for Okta Verify are turned off, battery optimisation "
            "is stopping the app, or the phone has no data connection. Focus and Do Not Disturb modes "
            "can also hold them back.</p>"
            "<ol>"
            "<li>Open Okta Verify directly. A pending request often appears inside the app even when "
            "no notification was shown.</li>"
            "<li>On the sign-in page click <b>Enter a code</b> and type the six-digit code from Okta "
            "Verify instead of waiting for the push.</li>"
            "<li><b>iPhone:</b> <b>Settings > Notifications > Okta Verify</b>, turn on <b>Allow "
            "Notifications</b> and <b>Time Sensitive Notifications</b>.</li>"
            "<li><b>Android:</b> <b>Settings > Apps > Okta Verify > Battery</b>, set to "
            "<b>Unrestricted</b>.</li>"
            "</ol>"
            "<p><b>Never approve a push you did not start.</b> If you receive unexpected prompts, deny "
            "them and report it to the Service Desk as a security incident.</p>"
        ),
    },
    "okta_app_not_assigned": {
        "short_description": "Okta: You are not allowed to access this app",
        "category": "Accounts and Access",
        "keywords": ("okta", "sso", "access", "app", "assigned", "403"),
        "text": (
            "<p><b>Symptoms:</b> Clicking an application tile or link shows an Okta page with "
            "<b>403 - You are not allowed to access this app. To request access, contact an "
            "admin</b>, or the tile you expect is missing from your Okta dashboard.</p>"
            "<p><b>Cause:</b> Single sign-on only lets you into applications you are assigned to. "
            "Assignment comes from your department, your job role in Workday, or an approved access "
            "request. A job change can remove access to apps from your old role.</p>"
            "<ol>"
            "<li>Sign out of Okta and back in; assignments made in the last hour appear only after a "
            "new session.</li>"
            "<li>Check the <b>Apps</b> catalog on your Okta dashboard with <b>Add apps</b>. Some apps "
            "can be self-assigned.</li>"
            "<li>If the app is not there, request it in the Service Catalog using <b>Application "
            "Access</b> and name the role you need.</li>"
            "</ol>"
            "<p>Requests are approved by your manager and the application owner. If you were able to use "
            "the app yesterday and nothing has changed in your role, contact the Service Desk.</p>"
        ),
    },
    "password_policy": {
        "short_description": "Password requirements and expiry rules",
        "category": "Accounts and Access",
        "keywords": ("password", "policy", "expiry", "complexity", "requirements"),
        "text": (
            "<p>Your company password protects email, VPN, laptops and every application that uses "
            "single sign-on. The current rules are:</p>"
            "<ul>"
            "<li>At least <b>14 characters</b>. A passphrase of four or more unrelated words is "
            "easiest to remember.</li>"
            "<li>No part of your name or user ID, and not one of your last 12 passwords.</li>"
            "<li>Passwords found in known breach lists are rejected with 'The password does not meet "
            "the password policy requirements'.</li>"
            "<li>Passwords expire every <b>365 days</b>. Reminders start 14 days before expiry.</li>"
            "<li>Privileged and service accounts have separate, stricter rules.</li>"
            "</ul>"
            "<ol>"
            "<li>To change a password before it expires, press <b>Ctrl+Alt+Del</b> on a Windows "
            "laptop and choose <b>Change a password</b>, or use the self-service portal.</li>"
            "<li>Store other work passwords only in the company password manager.</li>"
            "</ol>"
            "<p>The Service Desk will never ask for your password. Report anyone who does.</p>"
        ),
    },
    "shared_folder_access": {
        "short_description": "Request access to a shared folder or network drive",
        "category": "Accounts and Access",
        "keywords": ("folder", "access", "share", "permissions", "owner", "drive"),
        "text": (
            "<p><b>Symptoms:</b> Opening a folder on a network drive shows 'You don't currently have "
            "permission to access this folder' or 'Access is denied', while colleagues can open it.</p>"
            "<p><b>Cause:</b> Folder permissions are granted through security groups named after the "
            "folder, for example <b>FS-FIN-Payables-RW</b>. Each folder has a business owner who "
            "approves membership.</p>"
            "<ol>"
            "<li>Right-click the folder and choose <b>Properties</b>. Copy the full path from the "
            "<b>General</b> or <b>Security</b> tab.</li>"
            "<li>Open the Service Catalog and choose <b>Shared Folder Access</b>.</li>"
            "<li>Paste the path and choose <b>Read</b> or <b>Read/Write</b>. Request only what you "
            "need.</li>"
            "<li>After approval, sign out and back in, or lock and unlock while on the VPN, so your "
            "new group membership takes effect.</li>"
            "</ol>"
            "<p>Access for temporary staff expires with their contract. If the folder owner has left "
            "the company, say so in the request so we can find a new owner.</p>"
        ),
    },
    "new_hire_first_login": {
        "short_description": "First day: signing in to your laptop and accounts",
        "category": "Accounts and Access",
        "keywords": ("new", "hire", "onboarding", "first", "login", "account"),
        "text": (
            "<p>Welcome. Your account is created five working days before your start date and your "
            "manager receives your user ID and a temporary password to hand over on day one.</p>"
            "<ol>"
            "<li>Connect the laptop to the office network or CORP-GUEST Wi-Fi. At home, use the "
            "network icon on the sign-in screen to join your home Wi-Fi.</li>"
            "<li>Sign in with your user ID (for example <b>jsmith</b>) and the temporary password. "
            "You are asked to choose a new one immediately.</li>"
            "<li>When prompted, install Okta Verify on your phone and scan the QR code to set up "
            "MFA.</li>"
            "<li>Register a second method at <b>https://passwordreset.example.com</b> so you can reset "
            "your own password later.</li>"
            "<li>Open Outlook and Teams; your mailbox is already created.</li>"
            "</ol>"
            "<p>Application access beyond the standard set is requested by your manager through the "
            "<b>New Hire Onboarding Bundle</b>. If your temporary password does not work, the Service "
            "Desk can help after confirming your identity with your manager.</p>"
        ),
    },
    "contractor_account_extension": {
        "short_description": "Extend a contractor or temporary worker account",
        "category": "Accounts and Access",
        "keywords": ("contractor", "account", "expiry", "extension", "temporary"),
        "text": (
            "<p><b>Symptoms:</b> A contractor sees 'Your account has expired. Please contact your "
            "system administrator' when signing in, or receives an email warning that their account "
            "expires in 7 days.</p>"
            "<p><b>Cause:</b> Contractor and temporary worker accounts are created with an end date "
            "that matches the contract in Workday. The account is disabled automatically at "
            "midnight on that date.</p>"
            "<ol>"
            "<li>The sponsoring manager updates the contract end date in Workday, under <b>Edit "
            "Contingent Worker Contract</b>.</li>"
            "<li>The new date synchronises to the account overnight.</li>"
            "<li>If the account has already expired, the manager should also raise a Service Desk "
            "ticket so that the account is re-enabled the same day.</li>"
            "<li>The contractor may need to re-enrol MFA if the account was disabled for more than 30 "
            "days.</li>"
            "</ol>"
            "<p>Contractors cannot request their own extensions. Accounts disabled for more than 90 "
            "days are deleted along with their mailbox and OneDrive data, so extend in good time.</p>"
        ),
    },
    "admin_rights_request": {
        "short_description": "Request temporary administrator rights on your laptop",
        "category": "Accounts and Access",
        "keywords": ("admin", "rights", "elevation", "install", "privileged"),
        "text": (
            "<p>Standard users do not have permanent local administrator rights. Most software can be "
            "installed from Company Portal without admin rights. For other tasks, use <b>Admin By "
            "Request</b> to elevate for a limited time.</p>"
            "<ol>"
            "<li>Right-click the installer and choose <b>Run as administrator</b>. Admin By Request "
            "asks for a reason.</li>"
            "<li>Enter a short business reason, for example 'Install vendor driver for lab "
            "scanner'.</li>"
            "<li>Pre-approved installers run immediately. Others are sent to the IT approvers, who "
            "usually respond within 30 minutes during business hours.</li>"
            "<li>Developers with a standing approval can use <b>Request administrator session</b> "
            "from the tray icon for a 60-minute session.</li>"
            "</ol>"
            "<p>All elevated activity is logged and reviewed. Do not disable security software or "
            "change firewall settings during an admin session. To request standing approval, "
            "raise a request with your manager's and the security team's sign-off.</p>"
        ),
    },
    "service_account_request": {
        "short_description": "Request a service account for an application or integration",
        "category": "Accounts and Access",
        "keywords": ("service", "account", "integration", "credentials", "vault"),
        "text": (
            "<p>Applications, scripts and integrations must never run under a person's own account. "
            "Use a dedicated service account instead.</p>"
            "<ol>"
            "<li>Raise a <b>Service Account</b> request in the Service Catalog. Include the "
            "application, the systems it must reach, and a named owner and backup owner.</li>"
            "<li>Choose the account type: <b>Directory</b> (Windows and file shares), "
            "<b>Database</b> (Oracle or SQL Server login) or <b>API</b> (Okta OAuth client).</li>"
            "<li>The security team reviews the request. Interactive sign-in is disabled for all "
            "service accounts.</li>"
            "<li>Credentials are delivered in the company password vault, never by email or chat.</li>"
            "<li>Passwords rotate every 180 days. Store the account in your application's secret "
            "store so rotation does not cause an outage.</li>"
            "</ol>"
            "<p>Service accounts without a current owner are disabled during the quarterly access "
            "review. If an owner leaves, transfer ownership with a Service Desk request.</p>"
        ),
    },
    "sap_authorization_su53": {
        "short_description": "SAP: You are not authorized to use transaction",
        "category": "Accounts and Access",
        "keywords": ("sap", "authorization", "su53", "role", "transaction"),
        "text": (
            "<p><b>Symptoms:</b> SAP shows a message in the status bar such as <b>You are not "
            "authorized to use transaction ME21N</b> or <b>No authorization for company code "
            "1000</b>.</p>"
            "<p><b>Cause:</b> SAP access is granted through roles. Your roles do not include the "
            "transaction or the organisational level (company code, plant, purchasing group) you "
            "tried to use.</p>"
            "<ol>"
            "<li>Immediately after the error, type <b>/nSU53</b> in the command field and press "
            "Enter.</li>"
            "<li>SU53 shows the authorisation object that failed, for example <b>M_BEST_BSA</b>. "
            "Choose <b>Authorization Data > Save to Local File</b>, or take a screenshot.</li>"
            "<li>Raise an <b>Application Access</b> request for SAP ERP, attach the SU53 output and "
            "state which role your team uses for this task.</li>"
            "</ol>"
            "<p>Requests are approved by your manager and the SAP role owner. Some combinations, such "
            "as creating vendors and paying invoices, break segregation-of-duties rules and will be "
            "rejected.</p>"
        ),
    },
    "vpn_access_request": {
        "short_description": "Request remote access VPN for a new user",
        "category": "Accounts and Access",
        "keywords": ("vpn", "access", "remote", "request", "group"),
        "text": (
            "<p><b>Symptoms:</b> GlobalProtect shows 'Authentication failed: User is not authorized to "
            "connect to this gateway' even though your password and MFA code are correct.</p>"
            "<p><b>Cause:</b> Remote access is controlled by membership of the <b>VPN-Users</b> group. "
            "Most employees receive it automatically; some roles, contractors and new joiners in "
            "on-site roles do not.</p>"
            "<ol>"
            "<li>Open the Service Catalog and choose <b>VPN Access</b>.</li>"
            "<li>State whether you need standard access or access to restricted networks, such as "
            "production or finance systems.</li>"
            "<li>Your manager approves the request. Restricted access also needs the system owner's "
            "approval.</li>"
            "<li>Once the request is fulfilled, disconnect and reconnect GlobalProtect. It can take "
            "15 minutes for the group change to reach the gateways.</li>"
            "</ol>"
            "<p>VPN access is only for company-managed devices. Contractors on their own equipment "
            "should request the virtual desktop instead.</p>"
        ),
    },
    "mac_password_keychain": {
        "short_description": "Mac keeps asking for your old password after a change",
        "category": "Accounts and Access",
        "keywords": ("mac", "keychain", "password", "sync", "login"),
        "text": (
            "<p><b>Symptoms:</b> After a password change the Mac still unlocks with the old password, "
            "or repeatedly shows 'macOS wants to use the login keychain' or 'Update Keychain "
            "Password'.</p>"
            "<p><b>Cause:</b> The Mac's local password and login keychain are synchronised with your "
            "company password by Platform Single Sign-On. If you changed the password on another "
            "device, the Mac has not yet received it.</p>"
            "<ol>"
            "<li>Connect to the office network or the VPN.</li>"
            "<li>When the menu bar shows a <b>Registration Required</b> or <b>Sign in required</b> "
            "notification, click it and sign in with your new password.</li>"
            "<li>Lock the screen with <b>Ctrl+Cmd+Q</b> and unlock it with the new password.</li>"
            "<li>If asked to update the keychain, choose <b>Update Keychain Password</b> and enter "
            "your old password when prompted.</li>"
            "</ol>"
            "<p>If you no longer remember the old password, do not choose <b>Create New Keychain</b> "
            "without help, as saved Wi-Fi and app passwords will be lost. Contact the Service "
            "Desk.</p>"
        ),
    },
    "windows_hello_pin": {
        "short_description": "Set up or reset your Windows Hello PIN",
        "category": "Accounts and Access",
        "keywords": ("windows", "hello", "pin", "fingerprint", "signin"),
        "text": (
            "<p>Company laptops use <b>Windows Hello for Business</b>: you sign in with a PIN, "
            "fingerprint or face instead of your password. The PIN stays on the laptop and is not "
            "your network password.</p>"
            "<p><b>Symptoms of a problem:</b> 'Something happened and your PIN isn't available. Click "
            "to set up your PIN again', or 'That PIN is incorrect' after several tries.</p>"
            "<ol>"
            "<li>On the sign-in screen click <b>I forgot my PIN</b>.</li>"
            "<li>Sign in with your company password and approve MFA.</li>"
            "<li>Choose a new PIN of at least six digits. Avoid simple patterns like 123456.</li>"
            "<li>After signing in, add a fingerprint or face under <b>Settings > Accounts > Sign-in "
            "options</b>.</li>"
            "<li>If 'PIN isn't available' keeps appearing, remove the PIN in the same settings page, "
            "restart and set it up again while connected to the office network or VPN.</li>"
            "</ol>"
            "<p>Too many wrong PINs trigger BitLocker recovery. Contact the Service Desk if that "
            "happens.</p>"
        ),
    },
    # ----- Security --------------------------------------------------------
    "report_phishing": {
        "short_description": "How to report a phishing email",
        "category": "Security",
        "keywords": ("phishing", "report", "email", "suspicious", "scam"),
        "text": (
            "<p>Phishing emails try to make you click a link, open an attachment, approve a payment or "
            "give away your password. Typical signs:</p>"
            "<ul>"
            "<li>A yellow <b>[EXTERNAL]</b> tag on a message that claims to come from a colleague or "
            "executive.</li>"
            "<li>Urgent requests to change bank details, buy gift cards or 'verify your mailbox'.</li>"
            "<li>Links where the address shown when you hover differs from the text, such as "
            "<b>micros0ft-login.co</b>.</li>"
            "<li>Unexpected HTML, ZIP or password-protected attachments.</li>"
            "</ul>"
            "<ol>"
            "<li>Do not click links, open attachments or reply.</li>"
            "<li>In Outlook select the message and click <b>Report > Report phishing</b> on the Home "
            "ribbon. On mobile, open the message, tap the three dots and choose <b>Report "
            "phishing</b>.</li>"
            "<li>The message is removed from your mailbox and sent to the security team for "
            "analysis.</li>"
            "</ol>"
            "<p>If you already clicked a link, entered your password or opened an attachment, call the "
            "Service Desk immediately and say it is a security incident. Acting within minutes limits "
            "the damage.</p>"
        ),
    },
    "compromised_credentials": {
        "short_description": "I entered my password on a suspicious site or got unexpected MFA prompts",
        "category": "Security",
        "keywords": ("compromised", "password", "mfa", "suspicious", "incident", "security"),
        "text": (
            "<p><b>Symptoms:</b> You typed your company password into a page you now think was fake, "
            "your phone shows sign-in approval requests you did not start, or you received an alert "
            "'Unusual sign-in activity' from another country.</p>"
            "<p><b>Cause:</b> Someone may have your password and is trying to get past MFA by sending "
            "repeated push requests (MFA fatigue), hoping you approve one by mistake.</p>"
            "<ol>"
            "<li><b>Deny</b> every prompt you did not start. In Okta Verify tap <b>No, it's not me</b>, "
            "which also alerts the security team.</li>"
            "<li>Change your password immediately at <b>https://passwordreset.example.com</b>, from "
            "a device you trust.</li>"
            "<li>Call the Service Desk and report a security incident. Do not only send an email.</li>"
            "<li>Tell us which site you used and when, and whether you approved any prompt.</li>"
            "</ol>"
            "<p>The security team will sign you out of all sessions, review recent sign-ins and check "
            "your mailbox for forwarding rules added by an attacker. Reporting quickly is never held "
            "against you.</p>"
        ),
    },
    "bitlocker_recovery": {
        "short_description": "BitLocker recovery screen at start-up",
        "category": "Security",
        "keywords": ("bitlocker", "recovery", "key", "encryption", "boot"),
        "text": (
            "<p><b>Symptoms:</b> A blue screen titled <b>BitLocker recovery</b> asks you to 'Enter the "
            "recovery key for this drive' and shows a <b>Recovery key ID</b> of eight characters.</p>"
            "<p><b>Cause:</b> BitLocker encrypts every company laptop. It asks for the 48-digit "
            "recovery key when it detects a change that could indicate tampering: a BIOS or firmware "
            "update, a new dock at boot, a changed boot order, or too many wrong PIN attempts.</p>"
            "<ol>"
            "<li>Write down the first eight characters of the <b>Recovery key ID</b>.</li>"
            "<li>From another device, sign in to <b>https://myaccount.example.com</b>, open "
            "<b>Devices</b>, select your laptop and click <b>View BitLocker Keys</b>.</li>"
            "<li>Match the key ID and type the 48 digits. The number keys F1-F10 can be used if the "
            "number row does not work.</li>"
            "<li>After Windows starts, restart once more to confirm the prompt does not return.</li>"
            "</ol>"
            "<p>If you cannot reach the portal, call the Service Desk with the key ID and asset tag. We "
            "will read the key to you after verifying your identity. Never store the key with the "
            "laptop.</p>"
        ),
    },
    "lost_stolen_device": {
        "short_description": "Report a lost or stolen laptop or phone",
        "category": "Security",
        "keywords": ("lost", "stolen", "device", "wipe", "laptop", "phone"),
        "text": (
            "<p>Report a lost or stolen company device, or a personal phone that has company email, "
            "as soon as you notice. Every hour counts.</p>"
            "<ol>"
            "<li>Call the Service Desk, 24 hours a day, and say the device is lost or stolen. Do not "
            "wait until you are back in the office.</li>"
            "<li>Tell us the device type, asset tag if you know it, when and where you last had it, "
            "and whether it was locked.</li>"
            "<li>If the device was stolen, report it to the local police and send us the police "
            "reference number.</li>"
            "<li>Change your password from another device.</li>"
            "</ol>"
            "<p><b>What happens next:</b> we lock the device and revoke its certificates. Company "
            "laptops and company phones are remotely wiped. For a personal phone, only company data "
            "(Outlook, Teams and other managed apps) is removed; your photos and personal apps are "
            "not touched.</p>"
            "<p>A replacement laptop can usually be provided within two working days. If the device is "
            "found, tell us before using it, because it must be checked and reimaged.</p>"
        ),
    },
    "defender_threat_found": {
        "short_description": "Microsoft Defender shows Threats found on your laptop",
        "category": "Security",
        "keywords": ("antivirus", "defender", "threat", "malware", "quarantine"),
        "text": (
            "<p><b>Symptoms:</b> A notification from <b>Windows Security</b> says 'Threats found. "
            "Microsoft Defender Antivirus found threats. Get details', or a downloaded file disappears "
            "as soon as it is saved.</p>"
            "<p><b>Cause:</b> Defender detected and quarantined a file it considers malicious, such as "
            "a macro-enabled document from email, a cracked tool, or a browser extension. "
            "Detections are reported to the security team automatically.</p>"
            "<ol>"
            "<li>Do not try to restore or re-download the file.</li>"
            "<li>Open <b>Windows Security > Virus & threat protection > Protection history</b> and "
            "note the threat name, for example <b>Trojan:Win32/Wacatac.B!ml</b>, and the file "
            "path.</li>"
            "<li>Run <b>Quick scan</b> from the same page.</li>"
            "<li>Disconnect from the network if the laptop behaves strangely: new pop-ups, files "
            "renamed with unknown extensions or very high disk activity.</li>"
            "</ol>"
            "<p>Raise a ticket with the threat name and what you were doing at the time. If you think "
            "a business file was flagged in error, say so; the security team can submit it for "
            "review. Only the security team can release quarantined files.</p>"
        ),
    },
    "antivirus_definitions_outdated": {
        "short_description": "Antivirus shows out-of-date definitions or protection off",
        "category": "Security",
        "keywords": ("antivirus", "definitions", "outdated", "defender", "update"),
        "text": (
            "<p><b>Symptoms:</b> Windows Security shows a yellow or red warning: 'Virus & threat "
            "protection definitions are out of date', 'Real-time protection is off', or the Company "
            "Portal marks the device as not compliant with reason <b>Antivirus</b>.</p>"
            "<p><b>Cause:</b> Definition updates normally install several times a day. They stop when "
            "the laptop has been offline or asleep for a long time, when the Windows Update service is "
            "disabled, or when a third-party security tool conflicts with Defender.</p>"
            "<ol>"
            "<li>Connect to the internet and open <b>Windows Security > Virus & threat protection > "
            "Protection updates</b>, then click <b>Check for updates</b>.</li>"
            "<li>Check that <b>Security intelligence version</b> shows today's or yesterday's "
            "date.</li>"
            "<li>Restart the laptop if real-time protection stays off.</li>"
            "<li>Uninstall any personal antivirus products; only Defender is supported.</li>"
            "</ol>"
            "<p>If protection cannot be turned on, contact the Service Desk. Non-compliant devices are "
            "blocked from email and Teams after 24 hours.</p>"
        ),
    },
    "usb_storage_blocked": {
        "short_description": "USB drive blocked or read-only on a company laptop",
        "category": "Security",
        "keywords": ("usb", "storage", "blocked", "removable", "policy", "encryption"),
        "text": (
            "<p><b>Symptoms:</b> Plugging in a USB stick or external disk shows 'This device is "
            "blocked by your organization' or 'Access denied', or files can be read but not "
            "copied to the drive.</p>"
            "<p><b>Cause:</b> To prevent data loss, company laptops block writing to removable storage "
            "unless the drive is encrypted with <b>BitLocker To Go</b>. Some roles are blocked "
            "from using USB storage entirely.</p>"
            "<ol>"
            "<li>Use OneDrive, SharePoint or the secure file transfer service to share files "
            "instead.</li>"
            "<li>If you must use a USB drive, right-click it in File Explorer and choose <b>Turn on "
            "BitLocker</b>. Set a strong password; after encryption you can write to it.</li>"
            "<li>Read-only access to unencrypted drives is allowed, for example to import photos from "
            "a camera.</li>"
            "</ol>"
            "<p>Exceptions for lab equipment, trade shows or vendor devices need security approval. "
            "Raise a request stating the device, the data involved and how long you need the "
            "exception.</p>"
        ),
    },
    "send_encrypted_email": {
        "short_description": "Send an encrypted email to an external recipient",
        "category": "Security",
        "keywords": ("encrypt", "email", "confidential", "secure", "purview"),
        "text": (
            "<p>Use encryption when emailing personal data, payroll, health information or "
            "confidential contracts outside the company. Recipients can read encrypted mail in any "
            "email service.</p>"
            "<ol>"
            "<li>In a new message in Outlook for Windows, open the <b>Options</b> tab and click "
            "<b>Encrypt</b>, then choose <b>Encrypt-Only</b>. In Outlook on the web use the padlock "
            "icon.</li>"
            "<li>Alternatively, type <b>[secure]</b> anywhere in the subject line. The mail gateway "
            "encrypts the message on the way out.</li>"
            "<li>Choose <b>Do Not Forward</b> if recipients must not forward, print or copy the "
            "message.</li>"
            "<li>Send as normal. External recipients receive a link and confirm their identity with a "
            "one-time passcode.</li>"
            "</ol>"
            "<p>Messages containing credit card or national ID numbers without encryption may be "
            "blocked with the policy tip 'This message may contain sensitive information'. If a "
            "recipient cannot open an encrypted message, ask them to check spam for the one-time "
            "passcode email before contacting the Service Desk.</p>"
        ),
    },
    "certificate_warning_internal": {
        "short_description": "Certificate warning when opening an internal website",
        "category": "Security",
        "keywords": ("certificate", "ssl", "warning", "browser", "internal", "https"),
        "text": (
            "<p><b>Symptoms:</b> Chrome or Edge shows <b>Your connection isn't private</b> with "
            "<b>NET::ERR_CERT_AUTHORITY_INVALID</b>, <b>NET::ERR_CERT_DATE_INVALID</b> or "
            "<b>NET::ERR_CERT_COMMON_NAME_INVALID</b> on an internal site.</p>"
            "<p><b>Cause:</b> AUTHORITY_INVALID means the laptop does not trust the company root "
            "certificate, usually on personal or newly built devices. DATE_INVALID means the site's "
            "certificate has expired or the laptop clock is wrong. COMMON_NAME_INVALID means you used "
            "a short name or IP address instead of the full host name.</p>"
            "<ol>"
            "<li>Check the laptop's date, time and time zone.</li>"
            "<li>Use the full name, for example <b>https://intranet.corp.example.com</b>, not "
            "<b>https://intranet</b>.</li>"
            "<li>Click <b>Not secure > Certificate is not valid</b> and note the issuer and expiry "
            "date.</li>"
            "<li>Do not click <b>Proceed</b> or enter passwords on a page with a certificate "
            "warning.</li>"
            "</ol>"
            "<p>Report the site URL and the error code to the Service Desk. Expired certificates on "
            "business systems are treated as high priority.</p>"
        ),
    },
    "app_blocked_by_policy": {
        "short_description": "This app has been blocked by your system administrator",
        "category": "Security",
        "keywords": ("blocked", "applocker", "application", "policy", "control"),
        "text": (
            "<p><b>Symptoms:</b> Starting a program shows <b>This app has been blocked by your system "
            "administrator</b> or <b>Your organization used Device Guard to block this app</b>, or a "
            "portable tool closes instantly.</p>"
            "<p><b>Cause:</b> Application control allows only signed, approved software to run. "
            "Programs started from the Downloads folder, USB drives or temporary folders are blocked, "
            "as are tools such as unapproved remote access software, torrent clients and password "
            "crackers.</p>"
            "<ol>"
            "<li>Check whether the application is available in <b>Company Portal</b>. Installing "
            "from there is always allowed.</li>"
            "<li>Do not rename or move the file to get around the block; attempts are logged.</li>"
            "<li>If you need the tool for work, raise a software request with the vendor name, the "
            "download URL and your business reason.</li>"
            "</ol>"
            "<p>The security team reviews new applications within five working days. Urgent "
            "requests for customer-facing work can be escalated by your manager through the "
            "Service Desk.</p>"
        ),
    },
    "office_macros_blocked": {
        "short_description": "Office blocks macros from files downloaded from the internet",
        "category": "Security",
        "keywords": ("macros", "excel", "vba", "blocked", "trusted", "office"),
        "text": (
            "<p><b>Symptoms:</b> Opening an Excel or Word file shows a red bar: <b>SECURITY RISK "
            "Microsoft has blocked macros from running because the source of this file is "
            "untrusted</b>.</p>"
            "<p><b>Cause:</b> Files that arrive by email or are downloaded from the internet carry a "
            "'Mark of the Web'. Office blocks VBA macros in these files because macros are a common "
            "way to deliver malware.</p>"
            "<ol>"
            "<li>Ask yourself whether you expected the file and whether it needs macros at all. If "
            "in doubt, report it as phishing.</li>"
            "<li>For a trusted business file, save it to a SharePoint site or Teams channel that is "
            "configured as a trusted location, then open it from there.</li>"
            "<li>For a file from a known partner, right-click it, choose <b>Properties</b>, tick "
            "<b>Unblock</b> on the General tab and click <b>OK</b>. Only do this after confirming "
            "the sender by phone.</li>"
            "</ol>"
            "<p>Business-critical workbooks that rely on macros should be signed with the company "
            "code-signing certificate. Raise a request with the Applications team to arrange "
            "this.</p>"
        ),
    },
    "external_file_sharing": {
        "short_description": "Share files with external guests safely",
        "category": "Security",
        "keywords": ("sharing", "external", "guest", "onedrive", "sharepoint", "link"),
        "text": (
            "<p>You can share OneDrive and SharePoint files with customers and partners, but the "
            "settings depend on the sensitivity label of the file or site.</p>"
            "<ul>"
            "<li><b>Public</b> and <b>General</b>: links for specific people are allowed. "
            "'Anyone with the link' is disabled.</li>"
            "<li><b>Confidential</b>: external sharing needs a site owner's approval and links "
            "expire after 30 days.</li>"
            "<li><b>Highly Confidential</b>: external sharing is blocked. Use encrypted email or "
            "the secure file transfer service.</li>"
            "</ul>"
            "<ol>"
            "<li>Right-click the file and choose <b>Share</b>.</li>"
            "<li>Click the settings cog and select <b>Specific people</b>. Clear <b>Allow "
            "editing</b> if the guest only needs to read.</li>"
            "<li>Enter the guest's email address and click <b>Send</b>. The guest verifies with a "
            "one-time code.</li>"
            "</ol>"
            "<p>If sharing fails with 'Your organization's policies don't allow you to share with "
            "these users', the guest's domain may be blocked. Raise a ticket with the domain and "
            "business reason.</p>"
        ),
    },
    # ----- Printing --------------------------------------------------------
    "printer_add_windows": {
        "short_description": "Add the follow-me printer queue on Windows",
        "category": "Printing",
        "keywords": ("printer", "add", "windows", "queue", "papercut", "install"),
        "text": (
            "<p>Most offices use a single <b>Follow-Me</b> print queue: you print once and release the "
            "job at any multifunction printer by tapping your badge. Company laptops add the queue "
            "automatically, but you can add it by hand if it is missing.</p>"
            "<ol>"
            "<li>Connect to the office network or VPN.</li>"
            "<li>Press <b>Win+R</b>, type <b>\\\\print01.corp.example.com</b> and press Enter.</li>"
            "<li>Double-click <b>FollowMe-Mono</b> or <b>FollowMe-Colour</b>. Windows installs the "
            "driver and adds the printer.</li>"
            "<li>Open <b>Settings > Bluetooth & devices > Printers & scanners</b>, select the new "
            "printer and click <b>Set as default</b>.</li>"
            "<li>Turn off <b>Let Windows manage my default printer</b> so the default does not "
            "change.</li>"
            "</ol>"
            "<p>If you see 'Windows cannot connect to the printer' with error <b>0x0000011b</b> or "
            "<b>0x00000709</b>, restart the laptop and try again. Direct printing to a printer's IP "
            "address is not supported.</p>"
            "<p>Contact the Service Desk if the FollowMe queues are not listed on the print server or the "
            "driver installation fails.</p>"
        ),
    },
    "printer_add_mac": {
        "short_description": "Add the follow-me printer on a Mac",
        "category": "Printing",
        "keywords": ("printer", "mac", "macos", "queue", "papercut"),
        "text": (
            "<p>Macs print to the same <b>Follow-Me</b> queue as Windows laptops, using the PaperCut "
            "client to identify you.</p>"
            "<ol>"
            "<li>Open <b>Self Service</b> and run <b>Install Follow-Me Printing</b>. It installs the "
            "driver, the queue and the <b>PaperCut Client</b>.</li>"
            "<li>When the PaperCut Client asks for a user name and password, enter your company "
            "credentials and tick <b>Remember me</b>.</li>"
            "<li>Open <b>System Settings > Printers & Scanners</b> and check that <b>FollowMe-Mono</b> "
            "is listed. Set it as the default printer.</li>"
            "<li>Print a test page and release it at any printer with your badge.</li>"
            "</ol>"
            "<p><b>Known issue:</b> jobs stuck with 'Hold for Authentication' mean the Mac saved an "
            "old password. Open <b>Keychain Access</b>, search for <b>print01</b>, delete the entry and "
            "print again. Do not add printers with <b>AirPrint</b> or <b>Bonjour</b>; those jobs "
            "bypass PaperCut and will not print.</p>"
            "<p>If Self Service does not list the printing package, contact the Service Desk.</p>"
        ),
    },
    "print_queue_stuck": {
        "short_description": "Print jobs stuck in the queue",
        "category": "Printing",
        "keywords": ("print", "queue", "stuck", "spooler", "jobs", "error"),
        "text": (
            "<p><b>Symptoms:</b> Documents stay in the print queue with status 'Error - Printing' or "
            "'Spooling', later jobs wait behind them, and nothing appears at the printer release "
            "screen.</p>"
            "<p><b>Cause:</b> A large or damaged job, such as a 300-page PDF with embedded images, has "
            "blocked the local Print Spooler service, or the laptop lost its VPN connection while "
            "sending the job.</p>"
            "<ol>"
            "<li>Open <b>Settings > Bluetooth & devices > Printers & scanners</b>, select the printer "
            "and click <b>Open print queue</b>.</li>"
            "<li>Right-click each stuck job and choose <b>Cancel</b>.</li>"
            "<li>If the jobs do not disappear, restart the laptop. This restarts the Print Spooler.</li>"
            "<li>For large PDFs, open <b>Print > Advanced</b> in Acrobat and tick <b>Print as "
            "image</b>, or print in smaller page ranges.</li>"
            "</ol>"
            "<p>If every job fails for several people at the same printer, the problem is with the "
            "printer or the print server. Report the printer name from the label on the front.</p>"
            "<p>Contact the Service Desk if your own jobs stay stuck after a restart.</p>"
        ),
    },
    "secure_print_release": {
        "short_description": "Release print jobs with your badge (secure print)",
        "category": "Printing",
        "keywords": ("badge", "release", "secure", "print", "papercut", "card"),
        "text": (
            "<p>Jobs sent to the Follow-Me queue wait on the print server for up to 24 hours until you "
            "release them at any printer, so confidential pages are never left in the tray.</p>"
            "<ol>"
            "<li>Tap your badge on the card reader next to the printer's screen.</li>"
            "<li>The first time, the printer asks you to link your badge. Enter your user ID and "
            "password on the touchscreen; this is only needed once.</li>"
            "<li>Select the jobs you want and tap <b>Print</b>, or tap <b>Print All</b>.</li>"
            "<li>You can change copies, colour and duplex before releasing.</li>"
            "<li>Tap <b>Log out</b> when you are done.</li>"
            "</ol>"
            "<p><b>Troubleshooting:</b> 'Card not recognised' after a badge replacement means the new "
            "card is not linked yet; enter your credentials again to link it. If the release screen "
            "shows no jobs, check that you printed to <b>FollowMe</b>, not a printer name. Colour "
            "printing may be disabled for some departments.</p>"
            "<p>Contact the Service Desk if your badge is still not recognised after linking it, or if no "
            "printer on your floor accepts jobs.</p>"
        ),
    },
    "printer_paper_jam": {
        "short_description": "Clear a paper jam on the multifunction printer",
        "category": "Printing",
        "keywords": ("paper", "jam", "printer", "tray", "fuser"),
        "text": (
            "<p><b>Symptoms:</b> The printer screen shows a jam message such as <b>13.B2.D2 Jam in "
            "fuser area</b> or <b>Jam in Tray 2</b> and an animation of the doors to open.</p>"
            "<p><b>Cause:</b> Damp or curled paper, labels or envelopes fed through the wrong tray, "
            "torn scraps left from an earlier jam, or trays filled above the maximum line.</p>"
            "<ol>"
            "<li>Follow the on-screen animation. Open only the doors it shows.</li>"
            "<li>Pull the jammed sheet out slowly with both hands in the direction paper travels, so "
            "it does not tear.</li>"
            "<li>The fuser area can be very hot. Wait 10 minutes before reaching inside the rear "
            "door.</li>"
            "<li>Remove the tray, check for torn pieces, fan the paper stack and reload it below "
            "the fill line.</li>"
            "<li>Close all doors. The printer resumes the job automatically.</li>"
            "</ol>"
            "<p>Do not use tools or force parts. If the same jam repeats or the screen shows a code "
            "that starts with <b>50.</b> or <b>49.</b>, switch the printer off, put a note on it and "
            "report the printer name to the Service Desk.</p>"
        ),
    },
    "printer_offline": {
        "short_description": "Printer shows as Offline",
        "category": "Printing",
        "keywords": ("printer", "offline", "status", "network", "queue"),
        "text": (
            "<p><b>Symptoms:</b> The printer appears as <b>Offline</b> in <b>Printers & scanners</b>, "
            "or jobs fail with 'The printer is not responding'.</p>"
            "<p><b>Cause:</b> On a laptop, 'Offline' almost always means the print server cannot be "
            "reached: the VPN is disconnected or the laptop is on guest Wi-Fi. It can also mean the "
            "printer itself lost its network connection or is in deep sleep.</p>"
            "<ol>"
            "<li>Check that you are on CORP-SECURE, a desk cable or the VPN. Printing does not work "
            "from CORP-GUEST.</li>"
            "<li>Open <b>Printers & scanners</b>, select the printer, click <b>Open print queue</b> "
            "and make sure <b>Use Printer Offline</b> is not ticked in the <b>Printer</b> menu.</li>"
            "<li>At the printer, check whether the screen is on and shows an error or a network "
            "warning.</li>"
            "<li>Remove the printer and add it again from <b>\\\\print01.corp.example.com</b>.</li>"
            "</ol>"
            "<p>If the printer itself shows a network error, or several people cannot print to it, "
            "report the printer name and location.</p>"
            "<p>Contact the Service Desk with the printer name if it stays offline after you add it "
            "again.</p>"
        ),
    },
    "scan_to_email": {
        "short_description": "Scan to email not arriving",
        "category": "Printing",
        "keywords": ("scan", "email", "scanner", "pdf", "multifunction"),
        "text": (
            "<p><b>Symptoms:</b> You scan a document at the multifunction printer using <b>Scan to "
            "Me</b> but the email never arrives, or the printer shows 'Send failed: SMTP error "
            "554'.</p>"
            "<p><b>Cause:</b> Scans are sent from <b>scanner@example.com</b>. Large colour scans over "
            "the 25 MB limit are rejected, and scans sent to an external or personal address are "
            "blocked by design. Scans may also land in your Junk Email or quarantine.</p>"
            "<ol>"
            "<li>Check your <b>Junk Email</b> folder and the quarantine digest for messages from "
            "scanner@example.com.</li>"
            "<li>On the printer, tap your badge first, then use <b>Scan to Me</b> so the address is "
            "filled in automatically.</li>"
            "<li>For long documents choose <b>Black & White</b> at <b>200 dpi</b> and file type "
            "<b>PDF (compact)</b>.</li>"
            "<li>Split scans of more than 50 pages into several jobs, or use <b>Scan to OneDrive</b>."
            "</li>"
            "</ol>"
            "<p>If no scans arrive from any printer on your floor, report it to the Service Desk "
            "with the printer name and the time of your last scan.</p>"
        ),
    },
    "printer_supplies": {
        "short_description": "Low toner, replacing cartridges and ordering paper",
        "category": "Printing",
        "keywords": ("toner", "cartridge", "supplies", "paper", "printer"),
        "text": (
            "<p>Printer supplies are monitored remotely. When toner drops below 15%, a replacement "
            "cartridge is shipped to your site's facilities team automatically.</p>"
            "<ol>"
            "<li>When the screen says <b>Toner low</b>, keep printing. Most cartridges print several "
            "hundred more pages after the warning.</li>"
            "<li>When it says <b>Replace black cartridge</b>, check the supplies cupboard labelled "
            "with the printer model, for example <b>HP E62655</b>.</li>"
            "<li>Open the front door, pull out the old cartridge, shake the new one gently five or six "
            "times and slide it in until it clicks.</li>"
            "<li>Put the old cartridge in the box of the new one and leave it in the marked recycling "
            "bin.</li>"
            "</ol>"
            "<p>If there is no spare cartridge, contact the Facilities team, not IT. Paper is ordered "
            "by Facilities too. Report streaks, faded prints or smudges that continue after a new "
            "cartridge to the Service Desk, as they point to a drum or fuser fault.</p>"
        ),
    },
    # ----- Mobile ----------------------------------------------------------
    "mobile_intune_enroll": {
        "short_description": "Enrol your phone to access company email and Teams",
        "category": "Mobile",
        "keywords": ("intune", "enroll", "phone", "company", "portal", "mdm"),
        "text": (
            "<p>To use Outlook, Teams and OneDrive on a phone, the phone must be registered with "
            "Microsoft Intune. On personal phones only the company apps are managed; IT cannot see "
            "your photos, messages or browsing.</p>"
            "<ol>"
            "<li>Install <b>Intune Company Portal</b> (Android) or <b>Microsoft Authenticator</b> "
            "(iPhone) from the app store.</li>"
            "<li><b>Android:</b> open Company Portal, sign in with your work account and tap "
            "<b>Begin</b>. Allow it to create a <b>work profile</b>; company apps appear with a "
            "briefcase badge.</li>"
            "<li><b>iPhone:</b> install Outlook, sign in with your work account and follow the "
            "prompt to register the device with Authenticator.</li>"
            "<li>Set a screen lock PIN of at least six digits if the phone asks for one.</li>"
            "</ol>"
            "<p>Enrolment fails on phones running very old operating systems or on rooted or "
            "jailbroken devices. If you see 'Couldn't add your device' with error <b>80180014</b>, "
            "you have reached the limit of five devices; remove an old one at "
            "<b>https://myaccount.example.com</b> first.</p>"
            "<p>Contact the Service Desk if enrolment fails with any other error code.</p>"
        ),
    },
    "mobile_outlook_setup": {
        "short_description": "Set up Outlook and Teams on iPhone or Android",
        "category": "Mobile",
        "keywords": ("outlook", "mobile", "iphone", "android", "email", "setup"),
        "text": (
            "<p>The built-in Mail, Gmail and Samsung Email apps cannot connect to company email. Use "
            "the Microsoft Outlook app instead.</p>"
            "<ol>"
            "<li>Install <b>Microsoft Outlook</b> from the App Store or Google Play.</li>"
            "<li>Open it and enter your work email address. Tap <b>Add Account</b>.</li>"
            "<li>You are taken to the company sign-in page. Enter your password and approve "
            "MFA.</li>"
            "<li>If Outlook says 'Your organization requires Intune app protection', install "
            "Authenticator or Company Portal as prompted and reopen Outlook.</li>"
            "<li>Set a PIN for the app when asked. You need it when you open Outlook after 30 "
            "minutes of inactivity.</li>"
            "<li>Install <b>Microsoft Teams</b> and sign in with the same account; it picks up the "
            "existing session.</li>"
            "</ol>"
            "<p>Company data cannot be copied from Outlook or Teams into personal apps such as "
            "WhatsApp or personal notes. This is expected and is not a fault.</p>"
            "<p>If Outlook shows 'Your organization has removed its data' or keeps asking you to sign in, "
            "contact the Service Desk.</p>"
        ),
    },
    "mobile_mail_not_syncing": {
        "short_description": "Email not syncing on your phone",
        "category": "Mobile",
        "keywords": ("mobile", "sync", "email", "outlook", "phone"),
        "text": (
            "<p><b>Symptoms:</b> Outlook on your phone shows old messages only, says 'Account needs "
            "attention', or shows 'Syncing...' for a long time while email works on your laptop.</p>"
            "<p><b>Cause:</b> The mobile session expires after a password change, the app has been "
            "restricted by battery saver, or the phone has been marked non-compliant.</p>"
            "<ol>"
            "<li>Tap the account icon in Outlook. If a red warning is shown, tap it and sign in "
            "again with your new password.</li>"
            "<li>Go to <b>Settings</b> in Outlook, tap your account and choose <b>Reset "
            "Account</b>. This re-downloads mail without deleting anything on the server.</li>"
            "<li><b>iPhone:</b> check <b>Settings > Outlook > Background App Refresh</b> is on. "
            "<b>Android:</b> set Outlook's battery usage to <b>Unrestricted</b>.</li>"
            "<li>Open Company Portal and tap <b>Check status</b> to confirm the device is "
            "compliant.</li>"
            "<li>As a last step, delete the account from Outlook and add it again.</li>"
            "</ol>"
            "<p>If Outlook reports that the device has been blocked, contact the Service Desk.</p>"
        ),
    },
    "mobile_noncompliant": {
        "short_description": "Your device doesn't meet your organization's security requirements",
        "category": "Mobile",
        "keywords": ("compliance", "mobile", "blocked", "os", "update", "intune"),
        "text": (
            "<p><b>Symptoms:</b> Outlook or Teams on your phone shows <b>Your device doesn't meet your "
            "organization's security requirements</b> or <b>Your organization's data cannot be "
            "accessed from this device</b>, and company apps stop working.</p>"
            "<p><b>Cause:</b> Intune checks the phone daily. Common failures are an operating system "
            "that is too old (minimum iOS 17 and Android 13), a missing screen lock, or a phone that "
            "has not checked in for 14 days.</p>"
            "<ol>"
            "<li>Open <b>Company Portal</b>, tap the device and then <b>Check status</b>. The app "
            "lists which setting needs attention.</li>"
            "<li>Install pending operating system updates in <b>Settings > General > Software "
            "Update</b> (iPhone) or <b>Settings > System > Software update</b> (Android).</li>"
            "<li>Set a screen lock PIN of at least six digits.</li>"
            "<li>Tap <b>Check status</b> again. It can take up to 30 minutes before access "
            "returns.</li>"
            "</ol>"
            "<p>Phones that can no longer be updated by the manufacturer will remain blocked. Company "
            "phones can be replaced through the Mobile Phone catalog item.</p>"
            "<p>Contact the Service Desk if Company Portal still shows the device as not compliant 24 hours "
            "after updating.</p>"
        ),
    },
    "mobile_new_company_phone": {
        "short_description": "Setting up a new company phone",
        "category": "Mobile",
        "keywords": ("phone", "company", "setup", "transfer", "number"),
        "text": (
            "<p>New company phones arrive ready to enrol. Your mobile number moves from the old phone "
            "when you insert the new SIM or activate the eSIM.</p>"
            "<ol>"
            "<li>Before you start, make sure the old phone is charged and Okta Verify is still "
            "working on it.</li>"
            "<li>Turn on the new phone and connect to Wi-Fi. The setup screen shows 'This iPhone is "
            "managed by your organization' or 'This device belongs to your organization'. Continue "
            "and sign in with your work account.</li>"
            "<li>Company apps install automatically within 30 minutes.</li>"
            "<li>Move Okta Verify to the new phone using the self-service steps before wiping the old "
            "one.</li>"
            "<li>Photos and contacts on company phones are not backed up by IT. Move personal data "
            "yourself.</li>"
            "<li>Return the old phone to the IT bar or post it in the prepaid envelope within 14 "
            "days.</li>"
            "</ol>"
            "<p>Do not reset the old phone before handing it in; IT wipes it after removing the "
            "activation lock.</p>"
            "<p>If the new phone does not show the carrier name after an hour, contact the Service Desk.</p>"
        ),
    },
    "mobile_travel_roaming": {
        "short_description": "Using your company phone abroad (roaming)",
        "category": "Mobile",
        "keywords": ("roaming", "travel", "abroad", "data", "international"),
        "text": (
            "<p>Company phones have voice and text roaming enabled in most countries, but data "
            "roaming outside the EU, UK, USA and Canada is expensive and is turned off by default.</p>"
            "<ol>"
            "<li>At least three working days before travelling, raise a <b>Mobile Phone</b> request "
            "and choose <b>International roaming pack</b>. Give the destination and dates.</li>"
            "<li>Once confirmed, the carrier sends a text message. Turn on <b>Data Roaming</b> in "
            "your phone's mobile settings only after you receive it.</li>"
            "<li>Use hotel or office Wi-Fi for large downloads and video calls.</li>"
            "<li>Download offline maps before you leave.</li>"
            "</ol>"
            "<p>Some countries require a loaner device instead of your normal laptop and phone. "
            "Check the travel security page on the intranet before booking travel to a high-risk "
            "destination. If your phone shows 'No service' abroad, restart it and select a network "
            "manually under <b>Network selection</b>.</p>"
        ),
    },
    "mobile_hotspot": {
        "short_description": "Use your company phone as a hotspot for your laptop",
        "category": "Mobile",
        "keywords": ("hotspot", "tethering", "mobile", "data", "laptop"),
        "text": (
            "<p>A phone hotspot is a good backup when hotel or home internet fails. Company phone "
            "plans include 20 GB of shared data per month.</p>"
            "<ol>"
            "<li><b>iPhone:</b> open <b>Settings > Personal Hotspot</b> and turn on <b>Allow Others to "
            "Join</b>. Note the Wi-Fi password.</li>"
            "<li><b>Android:</b> open <b>Settings > Network & internet > Hotspot & tethering > Wi-Fi "
            "hotspot</b> and turn it on.</li>"
            "<li>On the laptop, connect to the phone's network, then start GlobalProtect.</li>"
            "<li>In Windows, open <b>Settings > Network & internet > Wi-Fi</b>, select the hotspot "
            "and turn on <b>Metered connection</b> to stop large updates from downloading.</li>"
            "<li>Pause OneDrive syncing while on the hotspot.</li>"
            "</ol>"
            "<p>If Personal Hotspot is missing on an iPhone, the carrier profile may need to be "
            "updated; restart the phone and check <b>Settings > General > About</b>. Hotspot data "
            "use on personal phones is not reimbursed unless agreed with your manager.</p>"
            "<p>Contact the Service Desk if the laptop joins the hotspot but GlobalProtect cannot "
            "connect.</p>"
        ),
    },
    "mobile_esim_activation": {
        "short_description": "Activate an eSIM on a company phone",
        "category": "Mobile",
        "keywords": ("esim", "activation", "qr", "carrier", "phone"),
        "text": (
            "<p>New company phones use an eSIM instead of a plastic SIM card. You receive an email "
            "from the mobile team with a QR code and an activation code.</p>"
            "<ol>"
            "<li>Open the email on your laptop, not on the phone you are activating, so you can scan "
            "the QR code.</li>"
            "<li><b>iPhone:</b> go to <b>Settings > Mobile Service > Add eSIM > Use QR Code</b>. "
            "<b>Android:</b> go to <b>Settings > Connections > SIM manager > Add eSIM</b>.</li>"
            "<li>Scan the QR code and label the line <b>Work</b>.</li>"
            "<li>Restart the phone. Within 15 minutes the status bar should show the carrier "
            "name.</li>"
            "</ol>"
            "<p>Each QR code can be used only once. If activation fails with 'Unable to complete "
            "cellular plan change' or 'eSIM cannot be added', do not scan the code again. Raise a "
            "ticket and the mobile team will request a new code from the carrier, usually within one "
            "working day.</p>"
        ),
    },
    # ----- Collaboration ---------------------------------------------------
    "teams_audio_not_heard": {
        "short_description": "Teams: other people cannot hear you in a meeting",
        "category": "Collaboration",
        "keywords": ("teams", "audio", "microphone", "meeting", "sound"),
        "text": (
            "<p><b>Symptoms:</b> Meeting participants say they cannot hear you, the microphone icon "
            "is not crossed out, and the speaking indicator around your picture does not light "
            "up.</p>"
            "<p><b>Cause:</b> Teams is using a different microphone than the one you are speaking "
            "into, often a dock, webcam or monitor microphone, or Windows has blocked microphone "
            "access for desktop apps.</p>"
            "<ol>"
            "<li>In the meeting click <b>More > Settings > Device settings</b> and pick the correct "
            "microphone. Speak and check the blue level bar moves.</li>"
            "<li>Before joining, use <b>Settings > Devices > Make a test call</b> to record and play "
            "back a message.</li>"
            "<li>Open <b>Settings > Privacy & security > Microphone</b> in Windows and turn on "
            "<b>Let desktop apps access your microphone</b>.</li>"
            "<li>Switch off noise suppression temporarily in Teams under <b>Noise suppression > "
            "Off</b> to check it is not cutting your voice.</li>"
            "<li>As a workaround, join the audio by phone with <b>Call me</b>.</li>"
            "</ol>"
            "<p>If nobody in several meetings can hear you on any device, contact the Service "
            "Desk.</p>"
        ),
    },
    "teams_screen_share_mac": {
        "short_description": "Teams or Zoom screen sharing shows a black screen on macOS",
        "category": "Collaboration",
        "keywords": ("screen", "sharing", "mac", "teams", "zoom", "permission"),
        "text": (
            "<p><b>Symptoms:</b> On a Mac, others see a black screen or only your wallpaper when you "
            "share, or Teams says 'Teams needs access to screen recording'.</p>"
            "<p><b>Cause:</b> macOS requires explicit <b>Screen & System Audio Recording</b> permission "
            "for each app. The permission can be reset by a macOS upgrade or an app reinstall.</p>"
            "<ol>"
            "<li>Open <b>System Settings > Privacy & Security > Screen & System Audio "
            "Recording</b>.</li>"
            "<li>Turn on <b>Microsoft Teams</b> and <b>zoom.us</b>. If they are already on, turn them "
            "off and on again.</li>"
            "<li>Quit the app completely with <b>Cmd+Q</b> and reopen it. The permission only takes "
            "effect after a restart of the app.</li>"
            "<li>If the app is missing from the list, click <b>+</b> and add it from the "
            "Applications folder.</li>"
            "<li>Share a single window instead of the whole desktop if you use several displays.</li>"
            "</ol>"
            "<p>Company Macs may show these settings as managed. If the switch is greyed out, "
            "contact the Service Desk so we can push the permission profile again.</p>"
        ),
    },
    "teams_clear_cache": {
        "short_description": "Clear the Microsoft Teams cache",
        "category": "Collaboration",
        "keywords": ("teams", "cache", "reset", "loading", "signin"),
        "text": (
            "<p><b>Symptoms:</b> Teams is stuck on a white or purple loading screen, shows 'We're "
            "sorry - we've run into an issue', chats show old messages, or your profile picture and "
            "presence are wrong.</p>"
            "<p><b>Cause:</b> The local Teams cache is corrupt or out of date. Clearing it is safe: "
            "chats, files and meetings are stored in the cloud.</p>"
            "<ol>"
            "<li>Right-click the Teams icon in the system tray and choose <b>Quit</b>.</li>"
            "<li><b>Windows (new Teams):</b> open <b>Settings > Apps > Installed apps</b>, find "
            "<b>Microsoft Teams</b>, click the three dots, choose <b>Advanced options</b> and click "
            "<b>Reset</b>.</li>"
            "<li><b>Mac:</b> in Finder press <b>Cmd+Shift+G</b>, go to <b>~/Library/Group "
            "Containers/UBF8T346G9.com.microsoft.teams</b> and delete its contents.</li>"
            "<li>Start Teams and sign in. The first start can take a minute.</li>"
            "</ol>"
            "<p>Custom backgrounds you uploaded may need to be added again. If Teams still fails "
            "after a cache reset, sign in at <b>https://teams.microsoft.com</b> to keep working and "
            "contact the Service Desk.</p>"
        ),
    },
    "zoom_sso_login": {
        "short_description": "Sign in to Zoom with company single sign-on",
        "category": "Collaboration",
        "keywords": ("zoom", "sso", "signin", "licence", "meeting"),
        "text": (
            "<p><b>Symptoms:</b> Zoom shows you as a <b>Basic</b> user with a 40-minute meeting limit, "
            "you see 'Your account is not associated with this organization', or Zoom asks you to "
            "verify an email.</p>"
            "<p><b>Cause:</b> You signed in with a personal Zoom account or with email and password. "
            "Licensed company accounts must sign in through SSO.</p>"
            "<ol>"
            "<li>In the Zoom app click your profile picture and <b>Sign Out</b>.</li>"
            "<li>On the sign-in screen choose <b>SSO</b>.</li>"
            "<li>Enter the company domain <b>example</b> so the address reads "
            "<b>example.zoom.us</b> and click <b>Continue</b>.</li>"
            "<li>Sign in on the company page and allow the browser to open Zoom.</li>"
            "<li>Check that your profile shows <b>Licensed</b>.</li>"
            "</ol>"
            "<p>If Zoom says an account with your email already exists, choose to <b>switch</b> the "
            "existing account into the company account; your personal meetings move with it. "
            "Contact the Service Desk if you still appear as Basic after signing in with SSO.</p>"
        ),
    },
    "slack_notifications": {
        "short_description": "Slack notifications not showing on desktop or phone",
        "category": "Collaboration",
        "keywords": ("slack", "notifications", "alerts", "desktop", "mobile"),
        "text": (
            "<p><b>Symptoms:</b> You miss Slack direct messages and mentions: no banner, no sound and "
            "no badge, although the messages appear when you open Slack.</p>"
            "<p><b>Cause:</b> Slack only notifies one device at a time, and sends mobile pushes only "
            "when you have been inactive on desktop for a set time. Windows Focus Assist, macOS "
            "Focus modes and Slack's own schedule can also silence notifications.</p>"
            "<ol>"
            "<li>In Slack click your avatar, then <b>Preferences > Notifications</b>, and set "
            "<b>Notify me about</b> to <b>Direct messages, mentions & keywords</b>.</li>"
            "<li>Check <b>Notification schedule</b> covers your working hours and time zone.</li>"
            "<li>Click your avatar and make sure <b>Pause notifications</b> is off.</li>"
            "<li>Use <b>Preferences > Notifications > Send a test notification</b>. If it does not "
            "appear, turn off Focus Assist or Do Not Disturb in the operating system.</li>"
            "<li>On mobile, set <b>Send notifications to my mobile devices</b> to <b>As soon as I'm "
            "inactive</b>.</li>"
            "</ol>"
            "<p>If the test notification works but a single channel is silent, check that channel's "
            "notification settings.</p>"
            "<p>If notifications still do not arrive on any device, contact the Service Desk with your Slack "
            "app version.</p>"
        ),
    },
    "sharepoint_access_denied": {
        "short_description": "SharePoint: You need permission to access this item",
        "category": "Collaboration",
        "keywords": ("sharepoint", "permission", "access", "site", "request"),
        "text": (
            "<p><b>Symptoms:</b> Opening a SharePoint link shows <b>You need permission to access this "
            "item</b> or <b>Sorry, this site hasn't been shared with you</b>.</p>"
            "<p><b>Cause:</b> The link points to a site, library or file that is shared only with "
            "specific people or groups. Sometimes the link was created while you were signed in with "
            "a different account.</p>"
            "<ol>"
            "<li>Check the account in the top-right corner. If it is a personal or guest account, "
            "sign out and sign in with your work account.</li>"
            "<li>On the access denied page, type a short reason and click <b>Request access</b>. The "
            "site owner receives an email.</li>"
            "<li>If you know the owner, message them directly; owners can grant access from "
            "<b>Settings > Site permissions</b>.</li>"
            "<li>For a Teams-connected site, ask a team owner to add you to the team instead.</li>"
            "</ol>"
            "<p>IT does not grant access to business content without the owner's approval. If the "
            "site owner has left the company, raise a ticket so the Applications team can assign a "
            "new owner.</p>"
        ),
    },
    "onedrive_sync_issues": {
        "short_description": "OneDrive not syncing: red X or Sync pending",
        "category": "Collaboration",
        "keywords": ("onedrive", "sync", "files", "pending", "conflict"),
        "text": (
            "<p><b>Symptoms:</b> File icons show a red X, the OneDrive cloud icon shows a pause or "
            "error symbol, or files stay on 'Sync pending'. Colleagues do not see your latest "
            "changes.</p>"
            "<p><b>Cause:</b> Common causes are file names with characters that are not allowed (such "
            'as <b>"</b> or <b>:</b>), paths longer than 400 characters, files open in another app, '
            "a full disk, or a file over the 250 GB limit.</p>"
            "<ol>"
            "<li>Click the OneDrive cloud icon in the taskbar and read the message under <b>Sync "
            "issues</b>. Click <b>View sync problems</b> for a list.</li>"
            "<li>Rename files with invalid characters or shorten deeply nested folder names.</li>"
            "<li>Close Office files that are open on another device and wait a few minutes.</li>"
            "<li>If nothing syncs, click the gear icon, choose <b>Pause syncing > 2 hours</b>, then "
            "<b>Resume syncing</b>.</li>"
            "<li>As a last resort, run <b>%localappdata%\\Microsoft\\OneDrive\\onedrive.exe "
            "/reset</b>.</li>"
            "</ol>"
            "<p>Do not delete and recreate the OneDrive folder. Contact the Service Desk if errors "
            "remain after a reset.</p>"
        ),
    },
    "confluence_page_restrictions": {
        "short_description": "Confluence: page not found or restricted",
        "category": "Collaboration",
        "keywords": ("confluence", "page", "restrictions", "space", "permissions"),
        "text": (
            "<p><b>Symptoms:</b> A Confluence link shows <b>Page Not Found</b> or <b>You don't have "
            "permission to view this page</b>, even though a colleague sent you the link.</p>"
            "<p><b>Cause:</b> Confluence shows 'Page Not Found' rather than 'Access denied' for pages "
            "you cannot see, so restricted pages look like missing ones. Restrictions can be set on "
            "the space, on a page, or inherited from a parent page.</p>"
            "<ol>"
            "<li>Ask the sender to click the padlock icon at the top of the page and check "
            "<b>Restrictions</b>.</li>"
            "<li>If the page is restricted, the author can add you under <b>Anyone can view, only "
            "some can edit</b> or add you by name.</li>"
            "<li>If the whole space is closed, click <b>Request access</b> on the space home page. "
            "The space administrator receives the request.</li>"
            "<li>Use the Confluence search to check whether the page was moved to another "
            "space.</li>"
            "</ol>"
            "<p>Space permissions for departments are managed by each space administrator. Raise a "
            "ticket only when no space administrator can be found.</p>"
        ),
    },
    "jira_project_permission": {
        "short_description": "Jira: cannot see a project or create issues",
        "category": "Collaboration",
        "keywords": ("jira", "project", "permission", "issues", "board"),
        "text": (
            "<p><b>Symptoms:</b> A Jira link shows <b>You can't view this issue. It may have been "
            "deleted or you don't have permission to view it</b>, the <b>Create</b> button does not "
            "offer the project, or a board is empty for you but not for your team.</p>"
            "<p><b>Cause:</b> Jira projects use permission schemes tied to groups such as "
            "<b>jira-proj-PAY-developers</b>. Boards filter on projects you can browse, so missing "
            "permission makes boards look empty.</p>"
            "<ol>"
            "<li>Check you are signed in with your company account and not an old local account.</li>"
            "<li>Ask the project lead, shown under <b>Project settings > Details</b>, which group "
            "gives the access you need.</li>"
            "<li>Request that group through <b>Application Access</b> in the Service Catalog. The "
            "project lead approves.</li>"
            "<li>Sign out and back in after approval; Jira caches group membership for up to one "
            "hour.</li>"
            "</ol>"
            "<p>Jira licences are limited. Occasional viewers should use a read-only "
            "<b>jira-viewers</b> membership, which does not consume a licence.</p>"
        ),
    },
    "meeting_room_av": {
        "short_description": "Meeting room screen, camera or Teams Room not working",
        "category": "Collaboration",
        "keywords": ("meeting", "room", "display", "camera", "conference", "hdmi"),
        "text": (
            "<p><b>Symptoms:</b> The room display shows 'No signal', the Teams Room console is stuck "
            "on 'Signing in', the room camera shows a black image, or people on the call hear an "
            "echo.</p>"
            "<p><b>Cause:</b> The touch console has lost its connection to the room computer, the "
            "display is on the wrong input, or a laptop plugged into the HDMI cable is overriding the "
            "room system. Echo usually means a laptop in the room has also joined audio.</p>"
            "<ol>"
            "<li>Unplug the HDMI or USB-C cable from your laptop and wait 30 seconds.</li>"
            "<li>On the console, tap <b>More > Settings > Restart device</b>, or use the restart "
            "button on the room's help card.</li>"
            "<li>Use the display remote to select the <b>HDMI 1</b> (room system) input.</li>"
            "<li>When joining from a laptop in the room, choose <b>Room audio</b> or <b>Don't use "
            "audio</b> to prevent echo.</li>"
            "</ol>"
            "<p>Report a broken room by room name from the label on the console. Urgent issues for "
            "board or customer meetings can be raised by phone for an engineer to attend.</p>"
            "<p>Call the Service Desk if the room is still not working five minutes before your meeting.</p>"
        ),
    },
    "zoom_cloud_recordings": {
        "short_description": "Find, share and keep Zoom cloud recordings",
        "category": "Collaboration",
        "keywords": ("zoom", "recording", "cloud", "transcript", "retention"),
        "text": (
            "<p>Cloud recordings are processed after the meeting ends and the host receives an email "
            "when they are ready. Processing normally takes about the length of the meeting, and "
            "up to 24 hours during busy periods.</p>"
            "<ol>"
            "<li>Sign in at <b>https://example.zoom.us</b> and open <b>Recordings & Transcripts > "
            "Cloud recordings</b>.</li>"
            "<li>Click the meeting topic to see the video, audio-only file and transcript.</li>"
            "<li>Click <b>Share</b> and choose <b>Only authenticated users in my account can "
            "view</b> for internal sharing.</li>"
            "<li>To keep a recording longer than the retention period, download the MP4 and save it "
            "to the team's SharePoint site.</li>"
            "</ol>"
            "<p><b>Retention:</b> cloud recordings are deleted after 90 days and stay in the "
            "trash for a further 30 days. If a recording is missing, check that recording was "
            "started in the cloud and not to the computer; local recordings are saved under "
            "<b>Documents\\Zoom</b>. Only the meeting host can access recordings; ask them to share "
            "it.</p>"
            "<p>Contact the Service Desk if a cloud recording you started does not appear after 24 hours.</p>"
        ),
    },
    # ----- Database --------------------------------------------------------
    "oracle_tns_timeout": {
        "short_description": "Oracle connection fails with ORA-12170 or ORA-12541",
        "category": "Database",
        "keywords": ("oracle", "ora-12170", "ora-12541", "tns", "listener", "timeout"),
        "text": (
            "<p><b>Symptoms:</b> SQL Developer, Toad or an application shows <b>ORA-12170: TNS:Connect "
            "timeout occurred</b>, <b>ORA-12541: TNS:no listener</b> or <b>ORA-12514: TNS:listener "
            "does not currently know of service requested</b>.</p>"
            "<p><b>Cause:</b> ORA-12170 means the database host could not be reached, usually because "
            "you are off VPN or a firewall rule is missing. ORA-12541 means nothing is listening on "
            "the port. ORA-12514 means the service name is wrong or the database is not open.</p>"
            "<ol>"
            "<li>Confirm the VPN is connected, then run <b>tnsping ORCLPRD</b> or <b>Test-NetConnection "
            "lnx-db-01 -Port 1521</b> in PowerShell.</li>"
            "<li>Check that your connection uses the service name from the database catalogue page, "
            "for example <b>FINPRD.corp.example.com</b>, and not an old SID.</li>"
            "<li>Update your <b>tnsnames.ora</b> from Company Portal with <b>Oracle Client "
            "Configuration</b>.</li>"
            "<li>Check the IT status page for database maintenance.</li>"
            "</ol>"
            "<p>If tnsping fails from the office network too, raise a Database ticket with the full "
            "error, the service name and your IP address.</p>"
        ),
    },
    "oracle_invalid_login": {
        "short_description": "Oracle ORA-01017 invalid password or ORA-28000 account locked",
        "category": "Database",
        "keywords": ("oracle", "ora-01017", "ora-28000", "password", "locked", "login"),
        "text": (
            "<p><b>Symptoms:</b> Connecting to an Oracle database fails with <b>ORA-01017: invalid "
            "username/password; logon denied</b>, <b>ORA-28000: the account is locked</b> or "
            "<b>ORA-28001: the password has expired</b>.</p>"
            "<p><b>Cause:</b> Oracle database accounts are separate from your network account and "
            "have their own password. Five failed attempts lock the account, which often happens when "
            "a saved password in SQL Developer or a scheduled report is out of date.</p>"
            "<ol>"
            "<li>Check the user name and remember that Oracle passwords are case-sensitive.</li>"
            "<li>For ORA-28001, SQL Developer prompts you to change the password; choose one of at "
            "least 15 characters.</li>"
            "<li>Update saved passwords in every tool and script that uses the account before asking "
            "for an unlock, or it will lock again.</li>"
            "<li>For ORA-28000 raise a Database ticket with the account and database name.</li>"
            "</ol>"
            "<p>Unlocks for personal accounts are done within four business hours. Application "
            "service accounts that lock out are treated as incidents with high urgency because "
            "integrations stop.</p>"
        ),
    },
    "sqlserver_login_18456": {
        "short_description": "SQL Server: Login failed for user (Error 18456)",
        "category": "Database",
        "keywords": ("sql", "server", "18456", "login", "failed", "mssql"),
        "text": (
            "<p><b>Symptoms:</b> SQL Server Management Studio, Excel or an application shows "
            "<b>Login failed for user 'CORP\\jsmith'. (Microsoft SQL Server, Error: 18456)</b>.</p>"
            "<p><b>Cause:</b> The message hides the real reason from the client. Common ones are: "
            "no login exists for you on that instance, the login exists but has no access to the "
            "default database, or SQL authentication was used where only Windows authentication is "
            "allowed.</p>"
            "<ol>"
            "<li>In SSMS choose <b>Windows Authentication</b>. Company instances do not allow SQL "
            "logins for people.</li>"
            "<li>Click <b>Options > Connection Properties</b> and set <b>Connect to database</b> to "
            "the database you need rather than <b>&lt;default&gt;</b>.</li>"
            "<li>Check you are connecting to the right instance, for example "
            "<b>win-db-03\\REPORTING</b>, including the instance name.</li>"
            "<li>If you were recently added to an access group, sign out of Windows and back in.</li>"
            "</ol>"
            "<p>If the error remains, raise a Database ticket with the server, instance, database and "
            "the time of the attempt so the DBA can read the state code in the SQL Server error "
            "log.</p>"
        ),
    },
    "database_access_request": {
        "short_description": "Request read-only access to a reporting database",
        "category": "Database",
        "keywords": ("database", "access", "readonly", "reporting", "request"),
        "text": (
            "<p>Analysts and developers can get read-only access to reporting copies of business "
            "databases. Direct access to production transactional databases is limited to DBAs and "
            "approved service accounts.</p>"
            "<ol>"
            "<li>Open the Service Catalog and choose <b>Database Access Request</b>.</li>"
            "<li>Select the database from the list, for example <b>FINRPT</b> (Oracle) or "
            "<b>SalesDW</b> (SQL Server).</li>"
            "<li>Choose <b>Read-only</b>. Write access needs a separate justification and a change "
            "request.</li>"
            "<li>The data owner approves. Databases with personal data also need approval from the "
            "privacy team.</li>"
            "<li>When fulfilled, SQL Server access is granted through your Windows login. For Oracle, "
            "you receive a personal account and a one-time password through the password "
            "vault.</li>"
            "</ol>"
            "<p>Access is reviewed every quarter and removed if unused for 90 days. Do not share "
            "database accounts or store passwords in scripts; use the vault or Windows "
            "authentication.</p>"
        ),
    },
    "slow_report_query": {
        "short_description": "Report or query running much slower than usual",
        "category": "Database",
        "keywords": ("slow", "query", "performance", "report", "blocking", "database"),
        "text": (
            "<p><b>Symptoms:</b> A report that normally takes seconds runs for minutes, times out with "
            "<b>Execution Timeout Expired</b>, or an application screen freezes while saving.</p>"
            "<p><b>Cause:</b> Typical causes are blocking by another long-running transaction, "
            "outdated statistics after a large data load, a changed execution plan, or the "
            "overnight batch still running into business hours.</p>"
            "<ol>"
            "<li>Note the exact report or screen, the parameters used and the time you started "
            "it.</li>"
            "<li>Check whether colleagues see the same slowness. If only one report is slow, narrow "
            "the date range to see whether it finishes.</li>"
            "<li>Do not run the same report repeatedly; each attempt adds load and can make blocking "
            "worse.</li>"
            "<li>Check the IT status page for batch delays.</li>"
            "</ol>"
            "<p>Raise a Database ticket with the details above. If a whole application is slow for "
            "everyone, call the Service Desk instead so a major incident can be opened. DBAs may ask "
            "for the query text so they can review the execution plan.</p>"
        ),
    },
    "db2_sql30081n": {
        "short_description": "DB2 error SQL30081N communication error",
        "category": "Database",
        "keywords": ("db2", "sql30081n", "connection", "communication", "mainframe"),
        "text": (
            "<p><b>Symptoms:</b> A DB2 client, ODBC connection or batch job fails with "
            "<b>SQL30081N A communication error has been detected. Communication protocol being "
            "used: 'TCP/IP'. Location where the error was detected: '10.20.4.15'. Communication "
            "function detecting the error: 'connect'. Protocol specific error code(s): '10060'</b>."
            "</p>"
            "<p><b>Cause:</b> The protocol error code tells you what failed: <b>10060</b> or "
            "<b>110</b> is a timeout (host unreachable or firewall), <b>10061</b> or <b>111</b> means "
            "connection refused (the DB2 instance is down or on another port), and <b>10054</b> or "
            "<b>104</b> means the connection was reset mid-session.</p>"
            "<ol>"
            "<li>Note the location IP address and the error code.</li>"
            "<li>Check VPN or network connectivity with <b>Test-NetConnection</b> to the port "
            "shown in your DSN, usually 50000.</li>"
            "<li>For 10054 during long queries, ask whether an idle timeout on the firewall is "
            "cutting the session.</li>"
            "</ol>"
            "<p>Raise a Database ticket with the full error text. Batch failures out of hours should be "
            "phoned in.</p>"
        ),
    },
    "odbc_dsn_setup": {
        "short_description": "Configure an ODBC data source for Excel or Power BI",
        "category": "Database",
        "keywords": ("odbc", "dsn", "excel", "driver", "connection"),
        "text": (
            "<p>Some reports in Excel, Access or Power BI Desktop connect to databases through an ODBC "
            "data source name (DSN).</p>"
            "<ol>"
            "<li>Install the driver from Company Portal: <b>ODBC Driver 18 for SQL Server</b>, "
            "<b>Oracle Instant Client ODBC</b> or <b>IBM Data Server Driver</b> for DB2.</li>"
            "<li>Open <b>ODBC Data Sources (64-bit)</b> from the Start menu. Use the 32-bit version "
            "only if your Excel is 32-bit (check <b>File > Account > About Excel</b>).</li>"
            "<li>On the <b>User DSN</b> tab click <b>Add</b>, pick the driver and enter the name and "
            "server given in the database catalogue.</li>"
            "<li>For SQL Server select <b>With Integrated Windows authentication</b> and set the "
            "default database.</li>"
            "<li>Click <b>Test Data Source</b>. You should see 'TESTS COMPLETED SUCCESSFULLY'.</li>"
            "</ol>"
            "<p>The error 'The specified DSN contains an architecture mismatch between the Driver and "
            "Application' means the 32-bit and 64-bit versions are mixed. Recreate the DSN in the "
            "other ODBC tool.</p>"
            "<p>Contact the Service Desk if the driver is missing from Company Portal or the test fails with "
            "a login error.</p>"
        ),
    },
    "sqlserver_deadlock_1205": {
        "short_description": "Application error: transaction was deadlocked (Error 1205)",
        "category": "Database",
        "keywords": ("deadlock", "1205", "sql", "server", "transaction", "retry"),
        "text": (
            "<p><b>Symptoms:</b> An application shows <b>Transaction (Process ID 87) was deadlocked "
            "on lock resources with another process and has been chosen as the deadlock victim. Rerun "
            "the transaction.</b> Saving an order or posting a batch fails, but works when "
            "retried.</p>"
            "<p><b>Cause:</b> Two sessions each hold a lock the other needs. SQL Server resolves this "
            "by cancelling the cheaper transaction. Occasional deadlocks are normal under load; "
            "frequent ones usually come from a new release, a missing index or overlapping batch "
            "jobs.</p>"
            "<ol>"
            "<li>Retry the action once. Do not retry in a loop.</li>"
            "<li>Note the time, the screen and what you were saving, such as an order number.</li>"
            "<li>Tell your team lead if several people see it at the same time.</li>"
            "</ol>"
            "<p>Raise a ticket with the details. The DBA team reviews the deadlock graph captured by "
            "the <b>system_health</b> Extended Events session and works with the Applications team "
            "on indexing or transaction order.</p>"
        ),
    },
    "oracle_tablespace_full": {
        "short_description": "Oracle ORA-01653 unable to extend table in tablespace",
        "category": "Database",
        "keywords": ("oracle", "ora-01653", "tablespace", "storage", "full"),
        "text": (
            "<p><b>Symptoms:</b> An application or batch job fails with <b>ORA-01653: unable to "
            "extend table FIN.GL_JE_LINES by 8192 in tablespace FIN_DATA</b> or <b>ORA-01688</b> "
            "for a partition. Saving new records fails while reading still works.</p>"
            "<p><b>Cause:</b> The tablespace has no free space left and its data files cannot "
            "autoextend, either because they reached their maximum size or because the underlying "
            "disk is full. Month-end loads and purge jobs that did not run are common triggers.</p>"
            "<ol>"
            "<li>Stop rerunning the failing job; each attempt writes more redo and can fill the "
            "archive log area.</li>"
            "<li>Raise a high-urgency Database ticket with the full error text, the database name "
            "and the job or screen affected.</li>"
            "<li>DBAs check free space with <b>DBA_FREE_SPACE</b> and add or resize a data file.</li>"
            "<li>After space is added, restart the failed job from its last checkpoint.</li>"
            "</ol>"
            "<p>Recurring tablespace alerts are tracked as a problem so capacity can be planned "
            "instead of fixed during business hours.</p>"
        ),
    },
    "database_refresh_request": {
        "short_description": "Request a refresh of a test database from production",
        "category": "Database",
        "keywords": ("refresh", "clone", "test", "database", "masking", "nonprod"),
        "text": (
            "<p>Test and UAT databases can be refreshed with a masked copy of production data so "
            "that testing uses realistic volumes. Refreshes overwrite everything in the target "
            "database.</p>"
            "<ol>"
            "<li>Raise a <b>Database Refresh</b> request at least five working days before you need "
            "it. Name the source, the target (for example <b>FINPRD to FINUAT</b>) and the preferred "
            "date.</li>"
            "<li>List anything in the target that must be preserved, such as test users, "
            "configuration tables or interface settings. DBAs export these before the refresh.</li>"
            "<li>The application owner approves. A standard change is raised for the refresh.</li>"
            "<li>During the refresh the target is unavailable for 4-8 hours.</li>"
            "<li>Personal data is masked automatically: names, bank details and national IDs are "
            "replaced.</li>"
            "</ol>"
            "<p>After the refresh, interfaces in the target stay disabled until the application team "
            "confirms they point at test endpoints, to stop test data reaching real partners.</p>"
        ),
    },
    "ssms_certificate_error": {
        "short_description": "SSMS: The certificate chain was issued by an authority that is not trusted",
        "category": "Database",
        "keywords": ("ssms", "certificate", "encrypt", "sql", "server", "trust"),
        "text": (
            "<p><b>Symptoms:</b> After upgrading SQL Server Management Studio or the ODBC driver, "
            "connecting fails with <b>A connection was successfully established with the server, "
            "but then an error occurred during the login process. (provider: SSL Provider, error: 0 "
            "- The certificate chain was issued by an authority that is not trusted.)</b></p>"
            "<p><b>Cause:</b> Newer drivers encrypt connections by default and check the server "
            "certificate. Some older instances still use a self-signed certificate.</p>"
            "<ol>"
            "<li>Use the fully qualified server name, for example "
            "<b>win-db-03.corp.example.com</b>; the certificate does not match short names.</li>"
            "<li>In the SSMS connect dialog, keep <b>Encryption</b> set to <b>Mandatory</b>.</li>"
            "<li>Only for servers listed as legacy in the database catalogue, tick <b>Trust server "
            "certificate</b>.</li>"
            "<li>Never tick it for production servers that hold customer data.</li>"
            "</ol>"
            "<p>If a production server still presents an untrusted certificate, raise a Database "
            "ticket so the DBAs can install a certificate from the company CA.</p>"
        ),
    },
}

# ---------------------------------------------------------------------------
# Incident symptoms (what callers report)
# ---------------------------------------------------------------------------

SYMPTOMS: Final[tuple[SymptomSpec, ...]] = (
    # ----- Email -----------------------------------------------------------
    {
        "category": "software",
        "subcategory": "email",
        "short_description": "Outlook keeps asking for my password",
        "description": (
            "Since this morning Outlook pops up a password window every few minutes. I type my "
            "password and it accepts it, but the prompt comes back. I changed my password last week."
        ),
        "impact": "3",
        "urgency": "2",
        "group": "Email",
        "keywords": ("outlook", "password", "prompt"),
        "kb_topic": "outlook_password_prompt",
        "ci_kind": "laptop",
    },
    {
        "category": "software",
        "subcategory": "email",
        "short_description": "Outlook error 0x800CCC0E when sending email",
        "description": (
            "Every email I send gets stuck in the Outbox and Outlook shows error 0x800CCC0E saying it "
            "cannot connect to the outgoing server. Receiving seems to work. I'm working from home "
            "today."
        ),
        "impact": "3",
        "urgency": "2",
        "group": "Email",
        "keywords": ("outlook", "0x800ccc0e", "outbox", "send"),
        "kb_topic": "outlook_error_0x800ccc0e",
        "ci_kind": "laptop",
    },
    {
        "category": "software",
        "subcategory": "email",
        "short_description": "Mailbox full - I can't send any emails",
        "description": (
            "I got a message saying my mailbox is full and can no longer send messages. I already "
            "deleted a lot but it still says full. I need to send quotes to customers today."
        ),
        "impact": "3",
        "urgency": "2",
        "group": "Email",
        "keywords": ("mailbox", "full", "quota"),
        "kb_topic": "mailbox_full",
        "ci_kind": None,
    },
    {
        "category": "inquiry",
        "subcategory": "email",
        "short_description": "Shared mailbox not showing up in Outlook",
        "description": (
            "My manager asked for me to get access to the team's shared mailbox yesterday, but it "
            "still doesn't show in Outlook. When I try to add it I get 'Cannot expand the folder'."
        ),
        "impact": "3",
        "urgency": "3",
        "group": "Email",
        "keywords": ("shared", "mailbox", "access"),
        "kb_topic": "shared_mailbox_access",
        "ci_kind": "application",
    },
    {
        "category": "software",
        "subcategory": "email",
        "short_description": "Deleted emails keep coming back in Outlook",
        "description": (
            "Emails I deleted reappear in my inbox, and some folders look different from Outlook on "
            "the web. It started after my laptop ran out of battery and shut down yesterday."
        ),
        "impact": "3",
        "urgency": "3",
        "group": "Email",
        "keywords": ("outlook", "sync", "ost"),
        "kb_topic": "outlook_ost_rebuild",
        "ci_kind": "laptop",
    },
    {
        "category": "inquiry",
        "subcategory": "email",
        "short_description": "Emails to a customer bounce back with 550 5.1.1",
        "description": (
            "I'm trying to reply to a customer and I keep getting an Undeliverable message with code "
            "550 5.1.1. I've emailed this person many times before. Could something be blocked on "
            "our side?"
        ),
        "impact": "3",
        "urgency": "2",
        "group": "Email",
        "keywords": ("bounce", "ndr", "undeliverable"),
        "kb_topic": "email_ndr_550",
        "ci_kind": "application",
    },
    {
        "category": "software",
        "subcategory": "email",
        "short_description": "Outlook search doesn't find older emails",
        "description": (
            "When I search in Outlook it only finds emails from the last couple of weeks. I know the "
            "messages are there because I can see them if I scroll. This makes it hard to find "
            "contract emails."
        ),
        "impact": "3",
        "urgency": "3",
        "group": "Email",
        "keywords": ("outlook", "search", "indexing"),
        "kb_topic": "outlook_search_not_working",
        "ci_kind": "laptop",
    },
    {
        "category": "inquiry",
        "subcategory": "email",
        "short_description": "Please set an out of office for a colleague on sick leave",
        "description": (
            "One of my team members is off sick for two weeks and didn't set up automatic replies. "
            "I'm their manager. Can you set an out of office pointing people to our team inbox?"
        ),
        "impact": "3",
        "urgency": "3",
        "group": "Email",
        "keywords": ("automatic", "replies", "absence"),
        "kb_topic": "out_of_office",
        "ci_kind": None,
    },
    {
        "category": "software",
        "subcategory": "email",
        "short_description": "Outlook crashes as soon as I open it",
        "description": (
            "Outlook opens, shows 'Loading Profile' and then closes with 'Outlook stopped working'. "
            "I restarted the laptop twice. Teams and the browser are fine."
        ),
        "impact": "3",
        "urgency": "2",
        "group": "Email",
        "keywords": ("outlook", "crash", "startup"),
        "kb_topic": "outlook_safe_mode_addins",
        "ci_kind": "laptop",
    },
    {
        "category": "inquiry",
        "subcategory": "email",
        "short_description": "Email from a supplier never arrived",
        "description": (
            "A supplier says they sent us an invoice three times but I have nothing in my inbox or "
            "junk folder. I did get a quarantine notification email, but I'm not sure if it's the same "
            "message."
        ),
        "impact": "3",
        "urgency": "2",
        "group": "Email",
        "keywords": ("quarantine", "missing", "spam"),
        "kb_topic": "email_quarantine_release",
        "ci_kind": "application",
    },
    {
        "category": "inquiry",
        "subcategory": "email",
        "short_description": "Can't email a 40 MB presentation to a client",
        "description": (
            "Outlook says the attachment size exceeds the allowable limit. The client needs the "
            "final deck before tomorrow's meeting. What is the approved way to send it?"
        ),
        "impact": "3",
        "urgency": "3",
        "group": "Email",
        "keywords": ("attachment", "size", "limit"),
        "kb_topic": "large_attachments",
        "ci_kind": None,
    },
    {
        "category": "software",
        "subcategory": "email",
        "short_description": "Outlook shows Disconnected and no new mail",
        "description": (
            "The bottom of Outlook says Disconnected and I haven't received any email since about "
            "9:30. The internet works and I can browse websites normally."
        ),
        "impact": "3",
        "urgency": "2",
        "group": "Email",
        "keywords": ("outlook", "disconnected", "offline"),
        "kb_topic": "outlook_disconnected",
        "ci_kind": "laptop",
    },
    {
        "category": "software",
        "subcategory": "email",
        "short_description": "Nobody in our office is receiving external email",
        "description": (
            "Several of us at the {location} have not received any email from outside the company "
            "since this morning. Internal email still arrives. Customers are calling to ask if we got "
            "their orders."
        ),
        "impact": "1",
        "urgency": "1",
        "group": "Email",
        "keywords": ("email", "outage", "external", "delivery"),
        "kb_topic": None,
        "ci_kind": "application",
    },
    {
        "category": "inquiry",
        "subcategory": "email",
        "short_description": "Assistant can't accept meetings on my behalf",
        "description": (
            "My assistant used to manage my calendar but since last week she can't accept or decline "
            "meeting invitations for me. She can still see the calendar."
        ),
        "impact": "3",
        "urgency": "3",
        "group": "Email",
        "keywords": ("calendar", "delegate", "meetings"),
        "kb_topic": "calendar_delegate",
        "ci_kind": None,
    },
    {
        "category": "software",
        "subcategory": "email",
        "short_description": "Email stopped working on my phone after password change",
        "description": (
            "I changed my password yesterday and now Outlook on my phone shows 'Account needs "
            "attention' and doesn't download new email. Email on my laptop is fine."
        ),
        "impact": "3",
        "urgency": "3",
        "group": "Email",
        "keywords": ("mobile", "sync", "phone"),
        "kb_topic": "mobile_mail_not_syncing",
        "ci_kind": None,
    },
    {
        "category": "inquiry",
        "subcategory": "email",
        "short_description": "Phone says it doesn't meet security requirements",
        "description": (
            "Outlook and Teams on my phone stopped working and show a message that my device doesn't "
            "meet my organization's security requirements. I haven't changed anything on the phone."
        ),
        "impact": "3",
        "urgency": "2",
        "group": "Email",
        "keywords": ("mobile", "compliance", "blocked"),
        "kb_topic": "mobile_noncompliant",
        "ci_kind": None,
    },
    {
        "category": "inquiry",
        "subcategory": "email",
        "short_description": "How do I get work email on my new iPhone?",
        "description": (
            "I just got a new iPhone and tried to add my work account to the Mail app but it doesn't "
            "accept my password. What app should I use?"
        ),
        "impact": "3",
        "urgency": "3",
        "group": "Service Desk",
        "keywords": ("iphone", "outlook", "setup"),
        "kb_topic": "mobile_outlook_setup",
        "ci_kind": None,
    },
    {
        "category": "inquiry",
        "subcategory": "email",
        "short_description": "Suspicious email asking me to verify my mailbox",
        "description": (
            "I received an email that looks like it's from IT asking me to verify my mailbox within 24 "
            "hours or it will be deleted. The sender address looks odd. I haven't clicked anything."
        ),
        "impact": "3",
        "urgency": "2",
        "group": "Email",
        "keywords": ("phishing", "suspicious", "email"),
        "kb_topic": "report_phishing",
        "ci_kind": None,
    },
    {
        "category": "inquiry",
        "subcategory": "email",
        "short_description": "How do I send an encrypted email with payroll data?",
        "description": (
            "I need to send salary details to our external payroll provider. My manager said it has "
            "to be encrypted. I don't see an option for that in Outlook."
        ),
        "impact": "3",
        "urgency": "3",
        "group": "Email",
        "keywords": ("encrypt", "email", "confidential"),
        "kb_topic": "send_encrypted_email",
        "ci_kind": None,
    },
    {
        "category": "inquiry",
        "subcategory": "email",
        "short_description": "Need to be added to the sales distribution list",
        "description": (
            "I joined the sales team last month but I don't get the emails sent to the regional "
            "sales list. I don't know who owns the list."
        ),
        "impact": "3",
        "urgency": "3",
        "group": "Email",
        "keywords": ("distribution", "list", "membership"),
        "kb_topic": "distribution_list_membership",
        "ci_kind": None,
    },
    # ----- Network ---------------------------------------------------------
    {
        "category": "network",
        "subcategory": "vpn",
        "short_description": "VPN says authentication failed with my token code",
        "description": (
            "I enter my password and the six-digit code from my phone but GlobalProtect says "
            "authentication failed. It worked on Friday. I restored my phone from a backup over the "
            "weekend."
        ),
        "impact": "3",
        "urgency": "2",
        "group": "Network",
        "keywords": ("vpn", "token", "authentication"),
        "kb_topic": "vpn_token_reset",
        "ci_kind": "vpn_gateway",
    },
    {
        "category": "network",
        "subcategory": "vpn",
        "short_description": "VPN error 809 from my hotel",
        "description": (
            "I'm travelling and the backup VPN connection fails with error 809, the remote server is "
            "not responding. I need to get to the file shares for a customer meeting this afternoon."
        ),
        "impact": "3",
        "urgency": "2",
        "group": "Network",
        "keywords": ("vpn", "809", "hotel"),
        "kb_topic": "vpn_error_809",
        "ci_kind": "vpn_gateway",
    },
    {
        "category": "network",
        "subcategory": "vpn",
        "short_description": "GlobalProtect stuck on Connecting",
        "description": (
            "GlobalProtect just spins on 'Connecting...' and never connects. I've restarted my laptop "
            "and my home router. My internet works otherwise."
        ),
        "impact": "3",
        "urgency": "2",
        "group": "Network",
        "keywords": ("globalprotect", "vpn", "connecting"),
        "kb_topic": "globalprotect_connecting",
        "ci_kind": "vpn_gateway",
    },
    {
        "category": "network",
        "subcategory": "vpn",
        "short_description": "Everything is very slow on VPN from home",
        "description": (
            "When I'm connected to the VPN, opening files on the S: drive takes minutes and SAP is "
            "really slow. Without VPN the internet is fast. This has been going on for a week."
        ),
        "impact": "3",
        "urgency": "3",
        "group": "Network",
        "keywords": ("vpn", "slow", "performance"),
        "kb_topic": "vpn_slow_performance",
        "ci_kind": "vpn_gateway",
    },
    {
        "category": "network",
        "subcategory": "vpn",
        "short_description": "Nobody on my team can connect to the VPN",
        "description": (
            "Since around 8am none of the remote staff on my team can connect to the VPN. "
            "GlobalProtect shows 'Gateway {ci_name}: connection timed out'. We can't access any "
            "internal systems."
        ),
        "impact": "1",
        "urgency": "1",
        "group": "Network",
        "keywords": ("vpn", "outage", "gateway"),
        "kb_topic": None,
        "ci_kind": "vpn_gateway",
    },
    {
        "category": "network",
        "subcategory": "vpn",
        "short_description": "VPN says user is not authorized to connect",
        "description": (
            "I just started and GlobalProtect says 'User is not authorized to connect to this "
            "gateway'. My password and MFA work for email. I'll be working remotely most of the time."
        ),
        "impact": "3",
        "urgency": "2",
        "group": "Network",
        "keywords": ("vpn", "authorized", "access"),
        "kb_topic": "vpn_access_request",
        "ci_kind": "vpn_gateway",
    },
    {
        "category": "network",
        "subcategory": "wireless",
        "short_description": "Laptop won't connect to CORP-SECURE Wi-Fi",
        "description": (
            "My laptop says it can't connect to CORP-SECURE and now it asks me for a username and "
            "password, which it never did before. I've been working from home for about two months."
        ),
        "impact": "3",
        "urgency": "2",
        "group": "Network",
        "keywords": ("wifi", "corp", "certificate"),
        "kb_topic": "wifi_corporate_connect",
        "ci_kind": "laptop",
    },
    {
        "category": "network",
        "subcategory": "wireless",
        "short_description": "Visitors can't get on the guest Wi-Fi",
        "description": (
            "We have three visitors from a partner company at the {location} today and the guest "
            "Wi-Fi sign-in page doesn't appear for them. They need internet for a presentation at "
            "11."
        ),
        "impact": "3",
        "urgency": "2",
        "group": "Service Desk",
        "keywords": ("guest", "wifi", "visitor"),
        "kb_topic": "wifi_guest_access",
        "ci_kind": None,
    },
    {
        "category": "network",
        "subcategory": "wireless",
        "short_description": "Wi-Fi keeps dropping during Teams calls",
        "description": (
            "My Wi-Fi disconnects for a few seconds several times an hour and my Teams calls freeze "
            "or drop. It happens mostly when I'm in the open area near the kitchen."
        ),
        "impact": "3",
        "urgency": "2",
        "group": "Network",
        "keywords": ("wifi", "drops", "teams"),
        "kb_topic": "wifi_keeps_dropping",
        "ci_kind": "laptop",
    },
    {
        "category": "network",
        "subcategory": "wireless",
        "short_description": "No Wi-Fi on the whole third floor",
        "description": (
            "Nobody on the third floor of the {location} can connect to Wi-Fi since about 10 minutes "
            "ago. The network shows up but won't connect. People are moving to meeting rooms on other "
            "floors."
        ),
        "impact": "2",
        "urgency": "1",
        "group": "Network",
        "keywords": ("wifi", "outage", "floor", "access"),
        "kb_topic": None,
        "ci_kind": "wireless_controller",
    },
    {
        "category": "network",
        "subcategory": "dns",
        "short_description": "Intranet site says DNS_PROBE_FINISHED_NXDOMAIN",
        "description": (
            "I can't open the intranet or the HR portal. Chrome says DNS_PROBE_FINISHED_NXDOMAIN. My "
            "colleague next to me can open them fine."
        ),
        "impact": "3",
        "urgency": "2",
        "group": "Network",
        "keywords": ("dns", "intranet", "resolve"),
        "kb_topic": "dns_flush_cache",
        "ci_kind": None,
    },
    {
        "category": "network",
        "subcategory": "dns",
        "short_description": "Internal server names not resolving for anyone",
        "description": (
            "Since a few minutes ago nobody in our team can reach internal systems by name. Pinging "
            "by IP address works. Applications like {app_name} show 'server not found'."
        ),
        "impact": "1",
        "urgency": "1",
        "group": "Network",
        "keywords": ("dns", "outage", "resolution"),
        "kb_topic": None,
        "ci_kind": "windows_infra_server",
    },
    {
        "category": "network",
        "subcategory": "dhcp",
        "short_description": "No network - laptop shows a 169.254 address",
        "description": (
            "My laptop says 'No internet' when I'm plugged into my dock. I ran ipconfig and it shows "
            "169.254.12.7. Wi-Fi works but is slow."
        ),
        "impact": "3",
        "urgency": "2",
        "group": "Network",
        "keywords": ("dhcp", "169.254", "ethernet"),
        "kb_topic": "dhcp_apipa_address",
        "ci_kind": "laptop",
    },
    {
        "category": "network",
        "subcategory": "dhcp",
        "short_description": "Several people on our floor can't get an IP address",
        "description": (
            "About ten people in our area of the {location} have no network connection on their "
            "docks. Everyone who checked has a 169.254 address. The ones who were already connected "
            "before lunch are fine."
        ),
        "impact": "2",
        "urgency": "1",
        "group": "Network",
        "keywords": ("dhcp", "scope", "outage"),
        "kb_topic": "dhcp_apipa_address",
        "ci_kind": "network_switch",
    },
    {
        "category": "network",
        "subcategory": "ip address",
        "short_description": "Windows says there is an IP address conflict",
        "description": (
            "I keep getting a popup saying Windows has detected an IP address conflict and then my "
            "network drops for a minute. This started when the new lab equipment was installed near "
            "my desk."
        ),
        "impact": "3",
        "urgency": "3",
        "group": "Network",
        "keywords": ("ip", "conflict", "address"),
        "kb_topic": "ip_address_conflict",
        "ci_kind": "laptop",
    },
    {
        "category": "network",
        "subcategory": "ip address",
        "short_description": "Need a fixed IP address for a new lab device",
        "description": (
            "We are installing a new label printer in the warehouse at the {location}. The vendor "
            "says it needs a static IP address, subnet mask and gateway. Who can assign one?"
        ),
        "impact": "3",
        "urgency": "3",
        "group": "Network",
        "keywords": ("static", "ip", "reservation"),
        "kb_topic": "ip_address_conflict",
        "ci_kind": "network_switch",
    },
    {
        "category": "network",
        "subcategory": "dns",
        "short_description": "Can't map the department shared drive",
        "description": (
            "My S: drive disappeared and when I try to map it again I get error 0x80070035, the "
            "network path was not found. I'm on the VPN from home."
        ),
        "impact": "3",
        "urgency": "3",
        "group": "Network",
        "keywords": ("drive", "map", "share"),
        "kb_topic": "map_network_drive",
        "ci_kind": None,
    },
    {
        "category": "network",
        "subcategory": "ip address",
        "short_description": "Network port at my new desk doesn't work",
        "description": (
            "I moved to a new desk and the network port doesn't give me a connection. The dock shows "
            "no lights on the network port. The label on the wall says 4F-B-027."
        ),
        "impact": "3",
        "urgency": "3",
        "group": "Network",
        "keywords": ("port", "ethernet", "desk"),
        "kb_topic": "wired_port_not_working",
        "ci_kind": "network_switch",
    },
    {
        "category": "network",
        "subcategory": "vpn",
        "short_description": "GlobalProtect is missing from my laptop",
        "description": (
            "After a restart the GlobalProtect icon is gone and I can't find the app in the Start "
            "menu. I need VPN to work from home tomorrow."
        ),
        "impact": "3",
        "urgency": "2",
        "group": "Service Desk",
        "keywords": ("globalprotect", "install", "vpn"),
        "kb_topic": "vpn_client_install",
        "ci_kind": "laptop",
    },
    # ----- Hardware --------------------------------------------------------
    {
        "category": "hardware",
        "subcategory": "cpu",
        "short_description": "Laptop won't turn on",
        "description": (
            "My laptop {ci_name} won't switch on at all this morning. The charging light comes on "
            "but the screen stays black when I press the power button. I have a client call at 2pm."
        ),
        "impact": "3",
        "urgency": "1",
        "group": "Hardware",
        "keywords": ("laptop", "power", "boot"),
        "kb_topic": "laptop_no_power",
        "ci_kind": "laptop",
    },
    {
        "category": "hardware",
        "subcategory": "cpu",
        "short_description": "Laptop battery only lasts about an hour",
        "description": (
            "My laptop battery goes from full to empty in about an hour, even with only Outlook "
            "and Teams open. Sometimes it jumps from 30% straight to shutting down."
        ),
        "impact": "3",
        "urgency": "3",
        "group": "Hardware",
        "keywords": ("battery", "drain", "laptop"),
        "kb_topic": "laptop_battery",
        "ci_kind": "laptop",
    },
    {
        "category": "hardware",
        "subcategory": "cpu",
        "short_description": "Laptop case is bulging near the touchpad",
        "description": (
            "The bottom of my laptop has started to bulge and it rocks on the desk. The touchpad is "
            "hard to click now. I've read this could be the battery and I've stopped using it."
        ),
        "impact": "3",
        "urgency": "1",
        "group": "Hardware",
        "keywords": ("battery", "swollen", "safety"),
        "kb_topic": "laptop_battery",
        "ci_kind": "laptop",
    },
    {
        "category": "hardware",
        "subcategory": "monitor",
        "short_description": "External monitors not detected on my dock",
        "description": (
            "Neither of my two monitors work when I connect my laptop to the docking station. The "
            "monitors say No Signal. Charging through the dock still works."
        ),
        "impact": "3",
        "urgency": "2",
        "group": "Hardware",
        "keywords": ("dock", "monitors", "display"),
        "kb_topic": "dock_external_monitors",
        "ci_kind": "laptop",
    },
    {
        "category": "hardware",
        "subcategory": "monitor",
        "short_description": "Monitor says No Signal",
        "description": (
            "One of my monitors shows 'No DP signal from your device' and goes to sleep. The other "
            "one is fine. I've checked the cable is plugged in."
        ),
        "impact": "3",
        "urgency": "3",
        "group": "Hardware",
        "keywords": ("monitor", "signal", "displayport"),
        "kb_topic": "monitor_no_signal",
        "ci_kind": None,
    },
    {
        "category": "hardware",
        "subcategory": "monitor",
        "short_description": "Monitor has vertical lines across the screen",
        "description": (
            "My desk monitor has developed several coloured vertical lines on the left side. They "
            "are there even on the monitor's own menu. It's hard to read spreadsheets."
        ),
        "impact": "3",
        "urgency": "3",
        "group": "Hardware",
        "keywords": ("monitor", "lines", "replacement"),
        "kb_topic": "monitor_no_signal",
        "ci_kind": None,
    },
    {
        "category": "hardware",
        "subcategory": "keyboard",
        "short_description": "Keyboard types the wrong characters",
        "description": (
            'When I press the @ key I get a " and some other symbols are in the wrong place. It '
            "started in the middle of writing an email. I didn't change any settings."
        ),
        "impact": "3",
        "urgency": "3",
        "group": "Hardware",
        "keywords": ("keyboard", "layout", "characters"),
        "kb_topic": "keyboard_wrong_characters",
        "ci_kind": "laptop",
    },
    {
        "category": "hardware",
        "subcategory": "keyboard",
        "short_description": "Spilled coffee on laptop, some keys stopped working",
        "description": (
            "I knocked my coffee over the laptop keyboard about an hour ago. I dried it off but now "
            "the E, R and T keys don't work. The laptop is {ci_name}."
        ),
        "impact": "3",
        "urgency": "2",
        "group": "Hardware",
        "keywords": ("keyboard", "spill", "damage"),
        "kb_topic": "keyboard_wrong_characters",
        "ci_kind": "laptop",
    },
    {
        "category": "hardware",
        "subcategory": "mouse",
        "short_description": "Wireless mouse lags and jumps around",
        "description": (
            "My wireless mouse keeps freezing and then jumping across the screen. I changed the "
            "battery and it's still doing it. The receiver is plugged into the back of the dock."
        ),
        "impact": "3",
        "urgency": "3",
        "group": "Hardware",
        "keywords": ("mouse", "wireless", "lag"),
        "kb_topic": "wireless_mouse_lag",
        "ci_kind": None,
    },
    {
        "category": "hardware",
        "subcategory": "mouse",
        "short_description": "Bluetooth mouse stopped working after a restart",
        "description": (
            "My Bluetooth mouse isn't working since Windows updates installed last night. It shows "
            "as paired but the pointer doesn't move. I'm using the touchpad for now."
        ),
        "impact": "3",
        "urgency": "3",
        "group": "Hardware",
        "keywords": ("mouse", "bluetooth", "pairing"),
        "kb_topic": "wireless_mouse_lag",
        "ci_kind": None,
    },
    {
        "category": "hardware",
        "subcategory": "disk",
        "short_description": "C: drive is full and updates won't install",
        "description": (
            "Windows keeps warning me about low disk space and the C: drive bar is red. Only 2 GB is "
            "free. Updates are failing and Outlook is behaving oddly."
        ),
        "impact": "3",
        "urgency": "3",
        "group": "Hardware",
        "keywords": ("disk", "space", "full"),
        "kb_topic": "disk_space_low",
        "ci_kind": "laptop",
    },
    {
        "category": "hardware",
        "subcategory": "disk",
        "short_description": "SMART hard disk error when laptop starts",
        "description": (
            "When I turn on my laptop it shows 'SMART Hard Disk Error 301' before Windows loads. "
            "It then starts normally but some files take ages to open. I'm worried about losing work."
        ),
        "impact": "3",
        "urgency": "1",
        "group": "Hardware",
        "keywords": ("disk", "smart", "failure"),
        "kb_topic": "disk_smart_failure",
        "ci_kind": "laptop",
    },
    {
        "category": "hardware",
        "subcategory": "memory",
        "short_description": "Blue screen MEMORY_MANAGEMENT several times a day",
        "description": (
            "My laptop crashed with a blue screen three times today. The stop code was "
            "MEMORY_MANAGEMENT each time. I lost some work in Excel."
        ),
        "impact": "3",
        "urgency": "2",
        "group": "Hardware",
        "keywords": ("bsod", "memory", "crash"),
        "kb_topic": "bsod_memory_management",
        "ci_kind": "laptop",
    },
    {
        "category": "hardware",
        "subcategory": "cpu",
        "short_description": "Laptop is very slow and the fan is always loud",
        "description": (
            "My laptop has become really slow and the fan runs loudly all day, even when I only have "
            "email open. The bottom gets very hot. It is about three years old."
        ),
        "impact": "3",
        "urgency": "3",
        "group": "Hardware",
        "keywords": ("slow", "fan", "overheating"),
        "kb_topic": "laptop_overheating",
        "ci_kind": "laptop",
    },
    {
        "category": "hardware",
        "subcategory": "cpu",
        "short_description": "Laptop not charging when connected to the dock",
        "description": (
            "My laptop says 'Plugged in, not charging' when it's on the dock and the battery keeps "
            "going down. At startup there was a message about a slow charger."
        ),
        "impact": "3",
        "urgency": "2",
        "group": "Hardware",
        "keywords": ("charging", "dock", "power"),
        "kb_topic": "usb_c_charging",
        "ci_kind": "laptop",
    },
    {
        "category": "hardware",
        "subcategory": "cpu",
        "short_description": "My laptop is due for replacement - what happens next?",
        "description": (
            "My laptop is over four years old and very slow. A colleague said laptops get replaced "
            "every four years. Can I get a new one, and do I need to back anything up?"
        ),
        "impact": "3",
        "urgency": "3",
        "group": "Hardware",
        "keywords": ("refresh", "replacement", "laptop"),
        "kb_topic": "hardware_refresh_loaner",
        "ci_kind": "laptop",
    },
    {
        "category": "hardware",
        "subcategory": "monitor",
        "short_description": "Meeting room display not working",
        "description": (
            "The main screen in the large meeting room at the {location} shows No Signal and the "
            "Teams Room console is stuck on 'Signing in'. We have a customer meeting in that room in "
            "30 minutes."
        ),
        "impact": "2",
        "urgency": "1",
        "group": "Hardware",
        "keywords": ("meeting", "room", "display"),
        "kb_topic": "meeting_room_av",
        "ci_kind": None,
    },
    {
        "category": "hardware",
        "subcategory": "disk",
        "short_description": "Failed disk alert on server",
        "description": (
            "Monitoring raised an alert that a physical disk in the RAID array on {ci_name} has "
            "failed. The array is running degraded. The server is still up."
        ),
        "impact": "2",
        "urgency": "2",
        "group": "Hardware",
        "keywords": ("raid", "disk", "server"),
        "kb_topic": None,
        "ci_kind": "linux_app_server",
    },
    {
        "category": "hardware",
        "subcategory": "memory",
        "short_description": "Correctable memory errors logged on server",
        "description": (
            "The iLO log on {ci_name} shows repeated correctable memory errors on DIMM slot 4 since "
            "last night. No outage yet, but the error count is rising."
        ),
        "impact": "2",
        "urgency": "2",
        "group": "Hardware",
        "keywords": ("memory", "dimm", "server"),
        "kb_topic": None,
        "ci_kind": "windows_app_server",
    },
    {
        "category": "hardware",
        "subcategory": "cpu",
        "short_description": "Server CPU at 100% since this morning",
        "description": (
            "{ci_name} has been at 100% CPU since about 7am and {app_name} users are reporting "
            "timeouts. Nothing was changed on the server that we know of."
        ),
        "impact": "2",
        "urgency": "1",
        "group": "Hardware",
        "keywords": ("cpu", "server", "performance"),
        "kb_topic": None,
        "ci_kind": "windows_app_server",
    },
    {
        "category": "hardware",
        "subcategory": "cpu",
        "short_description": "Left my laptop on the train",
        "description": (
            "I left my work laptop on the train this evening. It was in a black backpack. It was "
            "locked, but I'm worried about customer files on it. The laptop is {ci_name}."
        ),
        "impact": "2",
        "urgency": "1",
        "group": "Service Desk",
        "keywords": ("lost", "laptop", "security"),
        "kb_topic": "lost_stolen_device",
        "ci_kind": "laptop",
    },
    # ----- Operating system and desktop software ---------------------------
    {
        "category": "software",
        "subcategory": "os",
        "short_description": "Windows Update keeps failing with 0x80070002",
        "description": (
            "Every night Windows tries to install the same update and fails with error 0x80070002. "
            "Company Portal now says my device will be non-compliant in 5 days."
        ),
        "impact": "3",
        "urgency": "3",
        "group": "Service Desk",
        "keywords": ("windows", "update", "0x80070002"),
        "kb_topic": "windows_update_failed",
        "ci_kind": "laptop",
    },
    {
        "category": "software",
        "subcategory": "os",
        "short_description": "Signed in with a temporary profile - my desktop is empty",
        "description": (
            "When I logged in Windows said I've been signed in with a temporary profile. My desktop "
            "icons, wallpaper and browser bookmarks are all gone. I restarted once and it's the same."
        ),
        "impact": "3",
        "urgency": "1",
        "group": "Service Desk",
        "keywords": ("profile", "temporary", "windows"),
        "kb_topic": "windows_temporary_profile",
        "ci_kind": "laptop",
    },
    {
        "category": "software",
        "subcategory": "os",
        "short_description": "Laptop asking for a BitLocker recovery key",
        "description": (
            "After a BIOS update last night my laptop shows a blue BitLocker recovery screen asking "
            "for a recovery key. I don't have one. I can't start Windows at all."
        ),
        "impact": "3",
        "urgency": "1",
        "group": "Service Desk",
        "keywords": ("bitlocker", "recovery", "key"),
        "kb_topic": "bitlocker_recovery",
        "ci_kind": "laptop",
    },
    {
        "category": "software",
        "subcategory": "os",
        "short_description": "Office apps crash with error 0xc0000142",
        "description": (
            "Word, Excel and PowerPoint all fail to start with 'The application was unable to start "
            "correctly (0xc0000142)'. Outlook sometimes opens. It started after the last update."
        ),
        "impact": "3",
        "urgency": "2",
        "group": "Service Desk",
        "keywords": ("office", "crash", "repair"),
        "kb_topic": "office_repair",
        "ci_kind": "laptop",
    },
    {
        "category": "software",
        "subcategory": "os",
        "short_description": "macOS update keeps failing",
        "description": (
            "My MacBook keeps telling me an update is required by Friday, but every time I try it "
            "says 'An error occurred while preparing the update'. I have plenty of space."
        ),
        "impact": "3",
        "urgency": "3",
        "group": "Service Desk",
        "keywords": ("macos", "update", "mac"),
        "kb_topic": "macos_update_self_service",
        "ci_kind": "macbook",
    },
    {
        "category": "software",
        "subcategory": "os",
        "short_description": "Camera not working in Teams meetings",
        "description": (
            "My camera shows a black picture in Teams and Zoom. The little light next to the camera "
            "doesn't turn on. It worked yesterday."
        ),
        "impact": "3",
        "urgency": "2",
        "group": "Service Desk",
        "keywords": ("camera", "webcam", "teams"),
        "kb_topic": "webcam_not_working",
        "ci_kind": "laptop",
    },
    {
        "category": "software",
        "subcategory": "os",
        "short_description": "Headset microphone not picked up on calls",
        "description": (
            "My USB headset plays sound but the microphone doesn't work, so people hear the laptop "
            "microphone instead, with lots of echo. I tried unplugging and plugging it back in."
        ),
        "impact": "3",
        "urgency": "3",
        "group": "Service Desk",
        "keywords": ("headset", "microphone", "audio"),
        "kb_topic": "headset_microphone",
        "ci_kind": None,
    },
    {
        "category": "software",
        "subcategory": "os",
        "short_description": "Screen sharing shows a black screen on my Mac",
        "description": (
            "When I share my screen in Teams from my Mac, others only see a black screen. This "
            "started after I upgraded macOS yesterday."
        ),
        "impact": "3",
        "urgency": "3",
        "group": "Service Desk",
        "keywords": ("screen", "sharing", "mac"),
        "kb_topic": "teams_screen_share_mac",
        "ci_kind": "macbook",
    },
    {
        "category": "software",
        "subcategory": "os",
        "short_description": "USB stick blocked by my organization",
        "description": (
            "I need to copy files from a USB stick a supplier gave me, and Windows says this device "
            "is blocked by my organization. I can see the files but can't copy anything onto it."
        ),
        "impact": "3",
        "urgency": "3",
        "group": "Service Desk",
        "keywords": ("usb", "blocked", "storage"),
        "kb_topic": "usb_storage_blocked",
        "ci_kind": "laptop",
    },
    {
        "category": "software",
        "subcategory": "os",
        "short_description": "App blocked by system administrator",
        "description": (
            "I downloaded a tool a vendor recommended for reading log files and when I run it Windows "
            "says 'This app has been blocked by your system administrator'. I need it for a customer "
            "case."
        ),
        "impact": "3",
        "urgency": "3",
        "group": "Service Desk",
        "keywords": ("blocked", "application", "policy"),
        "kb_topic": "app_blocked_by_policy",
        "ci_kind": "laptop",
    },
    {
        "category": "inquiry",
        "subcategory": "internal application",
        "short_description": "Need Visio installed, it's not in Company Portal",
        "description": (
            "I need Microsoft Visio for process diagrams but I can't find it in Company Portal. "
            "My manager has approved it. How do I get it?"
        ),
        "impact": "3",
        "urgency": "3",
        "group": "Service Desk",
        "keywords": ("install", "software", "visio"),
        "kb_topic": "company_portal_install",
        "ci_kind": None,
    },
    {
        "category": "software",
        "subcategory": "internal application",
        "short_description": "Word and Excel say Unlicensed Product",
        "description": (
            "Word and Excel show a red bar saying Unlicensed Product and I can't edit documents. I "
            "signed in with my personal Microsoft account at home last week, if that matters."
        ),
        "impact": "3",
        "urgency": "2",
        "group": "Service Desk",
        "keywords": ("office", "licence", "unlicensed"),
        "kb_topic": "office_unlicensed",
        "ci_kind": None,
    },
    {
        "category": "software",
        "subcategory": "internal application",
        "short_description": "Excel freezes when opening the forecast workbook",
        "description": (
            "Excel goes to Not Responding every time I open the monthly forecast workbook. Smaller "
            "files are fine. The forecast file is about 80 MB and links to other files on the S: "
            "drive."
        ),
        "impact": "3",
        "urgency": "2",
        "group": "Service Desk",
        "keywords": ("excel", "freeze", "workbook"),
        "kb_topic": "excel_not_responding",
        "ci_kind": None,
    },
    {
        "category": "software",
        "subcategory": "internal application",
        "short_description": "Excel macros blocked in a file from a supplier",
        "description": (
            "A supplier sends us a pricing template with macros every month. This month Excel shows "
            "'Microsoft has blocked macros from running because the source of this file is "
            "untrusted'."
        ),
        "impact": "3",
        "urgency": "3",
        "group": "Service Desk",
        "keywords": ("macros", "excel", "blocked"),
        "kb_topic": "office_macros_blocked",
        "ci_kind": None,
    },
    # ----- Collaboration ---------------------------------------------------
    {
        "category": "software",
        "subcategory": "internal application",
        "short_description": "People can't hear me in Teams meetings",
        "description": (
            "In every Teams meeting today people say they can't hear me. I'm not muted and I'm using "
            "my usual headset. Phone calls on my mobile work fine."
        ),
        "impact": "3",
        "urgency": "2",
        "group": "Service Desk",
        "keywords": ("teams", "audio", "microphone"),
        "kb_topic": "teams_audio_not_heard",
        "ci_kind": "application",
    },
    {
        "category": "software",
        "subcategory": "internal application",
        "short_description": "Teams stuck on the loading screen",
        "description": (
            "Teams opens but stays on the purple loading screen forever. I've restarted the laptop. "
            "Teams on the web works, so I'm using that for now."
        ),
        "impact": "3",
        "urgency": "2",
        "group": "Service Desk",
        "keywords": ("teams", "loading", "cache"),
        "kb_topic": "teams_clear_cache",
        "ci_kind": "application",
    },
    {
        "category": "inquiry",
        "subcategory": "internal application",
        "short_description": "Zoom cuts my meetings off after 40 minutes",
        "description": (
            "My Zoom meetings end after 40 minutes and Zoom says I'm on a Basic account. I thought "
            "we had company licences. I host weekly customer calls."
        ),
        "impact": "3",
        "urgency": "3",
        "group": "Applications",
        "keywords": ("zoom", "licence", "sso"),
        "kb_topic": "zoom_sso_login",
        "ci_kind": "application",
    },
    {
        "category": "inquiry",
        "subcategory": "internal application",
        "short_description": "Can't find the recording of yesterday's Zoom meeting",
        "description": (
            "We recorded a training session in Zoom yesterday but I can't find the recording "
            "anywhere. I wasn't the host. Where are recordings kept?"
        ),
        "impact": "3",
        "urgency": "3",
        "group": "Service Desk",
        "keywords": ("zoom", "recording", "cloud"),
        "kb_topic": "zoom_cloud_recordings",
        "ci_kind": "application",
    },
    {
        "category": "inquiry",
        "subcategory": "internal application",
        "short_description": "Not getting Slack notifications for direct messages",
        "description": (
            "I've missed several Slack direct messages because I don't get any notification on my "
            "laptop or phone. The messages are there when I open Slack."
        ),
        "impact": "3",
        "urgency": "3",
        "group": "Service Desk",
        "keywords": ("slack", "notifications", "alerts"),
        "kb_topic": "slack_notifications",
        "ci_kind": "application",
    },
    {
        "category": "software",
        "subcategory": "internal application",
        "short_description": "OneDrive files have a red X and aren't syncing",
        "description": (
            "Several files in my OneDrive have a red X and my colleagues can't see my latest "
            "changes. The OneDrive icon says there are sync issues."
        ),
        "impact": "3",
        "urgency": "2",
        "group": "Service Desk",
        "keywords": ("onedrive", "sync", "files"),
        "kb_topic": "onedrive_sync_issues",
        "ci_kind": "application",
    },
    {
        "category": "inquiry",
        "subcategory": "internal application",
        "short_description": "Can't share a file with an external partner",
        "description": (
            "I'm trying to share a OneDrive folder with a consultant from another company and it says "
            "my organization's policies don't allow sharing with these users. They need the files by "
            "Thursday."
        ),
        "impact": "3",
        "urgency": "3",
        "group": "Service Desk",
        "keywords": ("sharing", "external", "onedrive"),
        "kb_topic": "external_file_sharing",
        "ci_kind": "application",
    },
    {
        "category": "inquiry",
        "subcategory": "internal application",
        "short_description": "Confluence link says Page Not Found",
        "description": (
            "A colleague sent me a link to our team's onboarding page in Confluence but I get Page Not "
            "Found. She can open it fine."
        ),
        "impact": "3",
        "urgency": "3",
        "group": "Applications",
        "keywords": ("confluence", "page", "restricted"),
        "kb_topic": "confluence_page_restrictions",
        "ci_kind": "application",
    },
    # ----- Business applications -------------------------------------------
    {
        "category": "software",
        "subcategory": "internal application",
        "short_description": "SAP GUI error: Partner not reached",
        "description": (
            "When I open SAP Logon and double-click production I get 'Partner not reached'. I'm "
            "connected to the VPN. My colleague in the office can log on."
        ),
        "impact": "3",
        "urgency": "2",
        "group": "Applications",
        "keywords": ("sap", "gui", "logon"),
        "kb_topic": "sap_gui_partner_not_reached",
        "ci_kind": "application",
    },
    {
        "category": "software",
        "subcategory": "internal application",
        "short_description": "SAP is down for the whole Finance team",
        "description": (
            "None of the Finance team can log on to SAP since 8:45. It's month-end close and "
            "invoices have to be posted today. We get a timeout after entering our password."
        ),
        "impact": "1",
        "urgency": "1",
        "group": "Applications",
        "keywords": ("sap", "outage", "finance"),
        "kb_topic": None,
        "ci_kind": "application",
    },
    {
        "category": "inquiry",
        "subcategory": "internal application",
        "short_description": "Concur won't let me submit my expense report",
        "description": (
            "Concur shows a red warning on two lines of my expense report and the Submit button gives "
            "an error. The receipts I photographed in the app don't seem to be attached."
        ),
        "impact": "3",
        "urgency": "3",
        "group": "Applications",
        "keywords": ("concur", "expense", "receipts"),
        "kb_topic": "concur_expense_errors",
        "ci_kind": "application",
    },
    {
        "category": "inquiry",
        "subcategory": "internal application",
        "short_description": "Workday Time tile missing, can't enter my hours",
        "description": (
            "I changed teams last week and now the Time tile has disappeared from my Workday home "
            "page. I need to submit my hours by Friday for payroll."
        ),
        "impact": "3",
        "urgency": "2",
        "group": "Applications",
        "keywords": ("workday", "time", "timesheet"),
        "kb_topic": "workday_time_entry",
        "ci_kind": "application",
    },
    {
        "category": "software",
        "subcategory": "internal application",
        "short_description": "Salesforce shows 'Sorry to interrupt' on account pages",
        "description": (
            "Every time I open an account in Salesforce I get 'Sorry to interrupt. This page has an "
            "error'. Contacts and opportunities open fine. It started after the weekend."
        ),
        "impact": "3",
        "urgency": "2",
        "group": "Applications",
        "keywords": ("salesforce", "lightning", "error"),
        "kb_topic": "salesforce_lightning_page",
        "ci_kind": "application",
    },
    {
        "category": "software",
        "subcategory": "internal application",
        "short_description": "Tableau sales dashboard not updated since Monday",
        "description": (
            "The weekly sales dashboard in Tableau still shows Monday's numbers. The 'Data last "
            "updated' date hasn't changed. Regional managers use it for the Thursday forecast call."
        ),
        "impact": "2",
        "urgency": "2",
        "group": "Applications",
        "keywords": ("tableau", "dashboard", "refresh"),
        "kb_topic": "tableau_extract_refresh",
        "ci_kind": "application",
    },
    {
        "category": "inquiry",
        "subcategory": "internal application",
        "short_description": "Customer didn't receive the DocuSign envelope",
        "description": (
            "I sent a contract through DocuSign two days ago and the customer says they never got "
            "it. It shows as Sent. They need to sign before the end of the quarter."
        ),
        "impact": "3",
        "urgency": "2",
        "group": "Applications",
        "keywords": ("docusign", "envelope", "contract"),
        "kb_topic": "docusign_envelope_issues",
        "ci_kind": "application",
    },
    {
        "category": "software",
        "subcategory": "internal application",
        "short_description": "Adobe Acrobat opens as Reader and I can't edit PDFs",
        "description": (
            "Acrobat used to let me edit PDFs but now it opens as Reader and the edit tools say "
            "Upgrade now. I think it asked me to sign in after an update."
        ),
        "impact": "3",
        "urgency": "3",
        "group": "Applications",
        "keywords": ("adobe", "acrobat", "pdf"),
        "kb_topic": "adobe_acrobat_sign_in",
        "ci_kind": "application",
    },
    {
        "category": "software",
        "subcategory": "internal application",
        "short_description": "{app_name} goes into a login loop",
        "description": (
            "When I open {app_name} it redirects to the sign-in page, then back, over and over. "
            "Sometimes it ends with ERR_TOO_MANY_REDIRECTS. It works in a private window."
        ),
        "impact": "3",
        "urgency": "2",
        "group": "Applications",
        "keywords": ("login", "loop", "browser"),
        "kb_topic": "browser_cache_clear",
        "ci_kind": "application",
    },
    {
        "category": "software",
        "subcategory": "internal application",
        "short_description": "{app_name} is extremely slow for everyone",
        "description": (
            "{app_name} has been very slow since this morning for our whole team at the {location}. "
            "Pages take over a minute to load and some time out. Other systems seem fine."
        ),
        "impact": "2",
        "urgency": "2",
        "group": "Applications",
        "keywords": ("slow", "performance", "application"),
        "kb_topic": None,
        "ci_kind": "application",
    },
    {
        "category": "software",
        "subcategory": "internal application",
        "short_description": "Error 500 when saving a record in {app_name}",
        "description": (
            "When I click Save in {app_name} I get 'HTTP 500 Internal Server Error'. My changes are "
            "lost. It happens every time for this record but not for others."
        ),
        "impact": "3",
        "urgency": "2",
        "group": "Applications",
        "keywords": ("error", "500", "save"),
        "kb_topic": None,
        "ci_kind": "application",
    },
    {
        "category": "software",
        "subcategory": "internal application",
        "short_description": "Certificate warning when opening {app_name}",
        "description": (
            "Since this morning Chrome shows 'Your connection isn't private' with "
            "NET::ERR_CERT_DATE_INVALID when I open {app_name}. I haven't clicked Proceed."
        ),
        "impact": "2",
        "urgency": "2",
        "group": "Applications",
        "keywords": ("certificate", "ssl", "expired"),
        "kb_topic": "certificate_warning_internal",
        "ci_kind": "application",
    },
    {
        "category": "software",
        "subcategory": "internal application",
        "short_description": "JetBrains IDE says my licence has expired",
        "description": (
            "IntelliJ IDEA opened the Manage Licenses window this morning saying my license has "
            "expired. I can't work on anything until it's activated again."
        ),
        "impact": "3",
        "urgency": "2",
        "group": "Applications",
        "keywords": ("jetbrains", "licence", "intellij"),
        "kb_topic": "jetbrains_license",
        "ci_kind": None,
    },
    {
        "category": "software",
        "subcategory": "internal application",
        "short_description": "git push fails with Permission denied (publickey)",
        "description": (
            "I can't push to our GitHub Enterprise repository. git says Permission denied "
            "(publickey). I generated a new SSH key when I got my new laptop."
        ),
        "impact": "3",
        "urgency": "2",
        "group": "Applications",
        "keywords": ("github", "ssh", "git"),
        "kb_topic": "github_ssh_authentication",
        "ci_kind": "application",
    },
    {
        "category": "software",
        "subcategory": "internal application",
        "short_description": "Application server not responding",
        "description": (
            "{app_name} returns 'Service Unavailable' for all users. The monitoring dashboard shows "
            "{ci_name} stopped answering health checks at 14:05."
        ),
        "impact": "1",
        "urgency": "1",
        "group": "Applications",
        "keywords": ("outage", "server", "unavailable"),
        "kb_topic": None,
        "ci_kind": "linux_app_server",
    },
    # ----- Accounts and access ---------------------------------------------
    {
        "category": "inquiry",
        "subcategory": "internal application",
        "short_description": "Forgot my password",
        "description": (
            "I've come back from three weeks of leave and I can't remember my password. I never set "
            "up the password reset questions, I think."
        ),
        "impact": "3",
        "urgency": "2",
        "group": "Identity and Access",
        "keywords": ("password", "reset", "forgotten"),
        "kb_topic": "password_reset_self_service",
        "ci_kind": None,
    },
    {
        "category": "software",
        "subcategory": "os",
        "short_description": "My account keeps getting locked out",
        "description": (
            "My account has locked three times today. I'm sure I'm typing the right password. I "
            "changed it on Monday. I also have email on my tablet at home."
        ),
        "impact": "3",
        "urgency": "1",
        "group": "Identity and Access",
        "keywords": ("account", "locked", "lockout"),
        "kb_topic": "account_locked_out",
        "ci_kind": None,
    },
    {
        "category": "inquiry",
        "subcategory": "internal application",
        "short_description": "New phone - need to move Okta Verify",
        "description": (
            "I got a new phone and traded in the old one, so I can't approve sign-ins anymore. I'm "
            "locked out of email and everything else that needs MFA."
        ),
        "impact": "3",
        "urgency": "1",
        "group": "Identity and Access",
        "keywords": ("mfa", "okta", "phone"),
        "kb_topic": "mfa_new_phone",
        "ci_kind": None,
    },
    {
        "category": "inquiry",
        "subcategory": "internal application",
        "short_description": "Not receiving MFA push notifications",
        "description": (
            "When I sign in it says a push notification was sent, but nothing shows on my phone. It "
            "worked until a few days ago. I'm using Android."
        ),
        "impact": "3",
        "urgency": "2",
        "group": "Identity and Access",
        "keywords": ("mfa", "push", "notification"),
        "kb_topic": "mfa_push_not_received",
        "ci_kind": None,
    },
    {
        "category": "inquiry",
        "subcategory": "internal application",
        "short_description": "Okta says I'm not allowed to access {app_name}",
        "description": (
            "When I click the {app_name} link I get an Okta page saying 'You are not allowed to "
            "access this app'. I need it for my new role, which started on Monday."
        ),
        "impact": "3",
        "urgency": "2",
        "group": "Identity and Access",
        "keywords": ("okta", "sso", "access"),
        "kb_topic": "okta_app_not_assigned",
        "ci_kind": "application",
    },
    {
        "category": "inquiry",
        "subcategory": "internal application",
        "short_description": "Access denied on a department shared folder",
        "description": (
            "I get 'You don't currently have permission to access this folder' when opening the "
            "Payables folder on the finance drive. The rest of my team can open it."
        ),
        "impact": "3",
        "urgency": "3",
        "group": "Identity and Access",
        "keywords": ("folder", "access", "permissions"),
        "kb_topic": "shared_folder_access",
        "ci_kind": None,
    },
    {
        "category": "inquiry",
        "subcategory": "internal application",
        "short_description": "New starter can't log in on their first day",
        "description": (
            "My new team member started today at the {location} and the temporary password from the "
            "welcome email doesn't work. They've been sitting at the desk for an hour."
        ),
        "impact": "3",
        "urgency": "1",
        "group": "Identity and Access",
        "keywords": ("new", "hire", "login"),
        "kb_topic": "new_hire_first_login",
        "ci_kind": None,
    },
    {
        "category": "inquiry",
        "subcategory": "internal application",
        "short_description": "Contractor account expired - needs extending",
        "description": (
            "One of our contractors can't sign in this morning. The message says the account has "
            "expired. Their contract was extended to the end of next quarter."
        ),
        "impact": "3",
        "urgency": "1",
        "group": "Identity and Access",
        "keywords": ("contractor", "expired", "extension"),
        "kb_topic": "contractor_account_extension",
        "ci_kind": None,
    },
    {
        "category": "software",
        "subcategory": "os",
        "short_description": "Need admin rights to install a scanner driver",
        "description": (
            "I need to install the driver for a document scanner in our lab and Windows asks for an "
            "administrator password. The driver isn't in Company Portal."
        ),
        "impact": "3",
        "urgency": "3",
        "group": "Identity and Access",
        "keywords": ("admin", "rights", "install"),
        "kb_topic": "admin_rights_request",
        "ci_kind": "laptop",
    },
    {
        "category": "inquiry",
        "subcategory": "internal application",
        "short_description": "Need a service account for a new integration",
        "description": (
            "Our team is building a nightly job that copies orders from Salesforce into the "
            "reporting database. We need a service account instead of using my own login."
        ),
        "impact": "3",
        "urgency": "3",
        "group": "Identity and Access",
        "keywords": ("service", "account", "integration"),
        "kb_topic": "service_account_request",
        "ci_kind": None,
    },
    {
        "category": "inquiry",
        "subcategory": "internal application",
        "short_description": "SAP: You are not authorized to use transaction ME21N",
        "description": (
            "I moved into the purchasing team and when I try to create a purchase order SAP says I'm "
            "not authorized to use transaction ME21N. My manager said I should have access."
        ),
        "impact": "3",
        "urgency": "2",
        "group": "Identity and Access",
        "keywords": ("sap", "authorization", "role"),
        "kb_topic": "sap_authorization_su53",
        "ci_kind": "application",
    },
    {
        "category": "software",
        "subcategory": "os",
        "short_description": "Mac keeps asking for my old password",
        "description": (
            "I changed my password on my Windows PC and now my MacBook still wants the old one to "
            "unlock. It also keeps asking about the login keychain."
        ),
        "impact": "3",
        "urgency": "3",
        "group": "Identity and Access",
        "keywords": ("mac", "keychain", "password"),
        "kb_topic": "mac_password_keychain",
        "ci_kind": "macbook",
    },
    {
        "category": "software",
        "subcategory": "os",
        "short_description": "Windows Hello says my PIN isn't available",
        "description": (
            "When I try to log in with my PIN, Windows says 'Something happened and your PIN isn't "
            "available'. My password still works."
        ),
        "impact": "3",
        "urgency": "2",
        "group": "Identity and Access",
        "keywords": ("pin", "hello", "signin"),
        "kb_topic": "windows_hello_pin",
        "ci_kind": "laptop",
    },
    {
        "category": "inquiry",
        "subcategory": "internal application",
        "short_description": "Can't see our team's Jira project",
        "description": (
            "Jira says 'You can't view this issue' for every ticket in our project and the board is "
            "empty for me. The rest of the team sees everything."
        ),
        "impact": "3",
        "urgency": "3",
        "group": "Identity and Access",
        "keywords": ("jira", "project", "permission"),
        "kb_topic": "jira_project_permission",
        "ci_kind": "application",
    },
    {
        "category": "inquiry",
        "subcategory": "internal application",
        "short_description": "SharePoint says I need permission to access this item",
        "description": (
            "I clicked a link to the project SharePoint site that my manager sent and it says I need "
            "permission. I requested access two days ago but nothing happened."
        ),
        "impact": "3",
        "urgency": "3",
        "group": "Identity and Access",
        "keywords": ("sharepoint", "permission", "access"),
        "kb_topic": "sharepoint_access_denied",
        "ci_kind": "application",
    },
    # ----- Security --------------------------------------------------------
    {
        "category": "inquiry",
        "subcategory": "internal application",
        "short_description": "I entered my password on a fake login page",
        "description": (
            "I clicked a link in an email about a shared document and typed my password on the page "
            "before I realised it looked wrong. That was about 15 minutes ago."
        ),
        "impact": "2",
        "urgency": "1",
        "group": "Identity and Access",
        "keywords": ("phishing", "compromised", "password"),
        "kb_topic": "compromised_credentials",
        "ci_kind": None,
    },
    {
        "category": "inquiry",
        "subcategory": "internal application",
        "short_description": "Getting MFA prompts I didn't request",
        "description": (
            "My phone keeps showing Okta Verify sign-in requests even though I'm not signing in to "
            "anything. I've denied about ten of them in the last hour."
        ),
        "impact": "2",
        "urgency": "1",
        "group": "Identity and Access",
        "keywords": ("mfa", "fatigue", "suspicious"),
        "kb_topic": "compromised_credentials",
        "ci_kind": None,
    },
    {
        "category": "inquiry",
        "subcategory": "antivirus",
        "short_description": "Defender says threats found on my laptop",
        "description": (
            "I got a Windows Security notification saying 'Threats found' right after I opened an "
            "attachment from a supplier. The file disappeared. Should I be worried?"
        ),
        "impact": "2",
        "urgency": "2",
        "group": "Service Desk",
        "keywords": ("antivirus", "threat", "malware"),
        "kb_topic": "defender_threat_found",
        "ci_kind": "laptop",
    },
    {
        "category": "inquiry",
        "subcategory": "antivirus",
        "short_description": "Antivirus definitions out of date, device not compliant",
        "description": (
            "Company Portal says my laptop is not compliant because of antivirus and Windows Security "
            "shows that definitions are out of date. I was on holiday for three weeks."
        ),
        "impact": "3",
        "urgency": "2",
        "group": "Service Desk",
        "keywords": ("antivirus", "definitions", "compliance"),
        "kb_topic": "antivirus_definitions_outdated",
        "ci_kind": "laptop",
    },
    {
        "category": "inquiry",
        "subcategory": "antivirus",
        "short_description": "Pop-ups and strange browser behaviour after installing a plugin",
        "description": (
            "Since I installed a PDF converter browser extension, my browser opens random shopping "
            "pages and the home page changed. I've removed the extension but the pop-ups continue."
        ),
        "impact": "3",
        "urgency": "2",
        "group": "Service Desk",
        "keywords": ("adware", "browser", "popups"),
        "kb_topic": "defender_threat_found",
        "ci_kind": "laptop",
    },
    # ----- Database --------------------------------------------------------
    {
        "category": "database",
        "subcategory": "oracle",
        "short_description": "ORA-12170 TNS connect timeout from SQL Developer",
        "description": (
            "SQL Developer can't connect to the finance reporting database. It times out with "
            "ORA-12170: TNS:Connect timeout occurred. It worked yesterday from the office; today I'm "
            "at home on VPN."
        ),
        "impact": "3",
        "urgency": "2",
        "group": "Database",
        "keywords": ("oracle", "ora-12170", "tns"),
        "kb_topic": "oracle_tns_timeout",
        "ci_kind": "linux_db_server",
    },
    {
        "category": "database",
        "subcategory": "oracle",
        "short_description": "Oracle account locked - ORA-28000",
        "description": (
            "I get ORA-28000: the account is locked when I log in to the Oracle reporting database. I "
            "think a scheduled report was still using my old password."
        ),
        "impact": "3",
        "urgency": "2",
        "group": "Database",
        "keywords": ("oracle", "locked", "ora-28000"),
        "kb_topic": "oracle_invalid_login",
        "ci_kind": "linux_db_server",
    },
    {
        "category": "database",
        "subcategory": "ms sql server",
        "short_description": "Login failed for user - SQL Server error 18456",
        "description": (
            "SQL Server Management Studio gives 'Login failed for user' with error 18456 when I "
            "connect to the reporting instance on {ci_name}. I was told I had been given access."
        ),
        "impact": "3",
        "urgency": "3",
        "group": "Database",
        "keywords": ("sql", "18456", "login"),
        "kb_topic": "sqlserver_login_18456",
        "ci_kind": "windows_db_server",
    },
    {
        "category": "database",
        "subcategory": "ms sql server",
        "short_description": "Need read-only access to the sales data warehouse",
        "description": (
            "I'm a new analyst in Sales Operations and need read-only access to the SalesDW database "
            "for pipeline reporting. My manager has approved it."
        ),
        "impact": "3",
        "urgency": "3",
        "group": "Database",
        "keywords": ("access", "readonly", "warehouse"),
        "kb_topic": "database_access_request",
        "ci_kind": "windows_db_server",
    },
    {
        "category": "database",
        "subcategory": "oracle",
        "short_description": "Month-end finance reports running extremely slowly",
        "description": (
            "The month-end GL reports that normally take two minutes have been running for over half "
            "an hour, and some fail with a timeout. The whole finance team is affected."
        ),
        "impact": "2",
        "urgency": "2",
        "group": "Database",
        "keywords": ("slow", "report", "performance"),
        "kb_topic": "slow_report_query",
        "ci_kind": "linux_db_server",
    },
    {
        "category": "database",
        "subcategory": "db2",
        "short_description": "Nightly batch failed with SQL30081N",
        "description": (
            "The nightly warehouse load failed at 02:10 with SQL30081N, a communication error, "
            "protocol error code 10054. The downstream reports for the morning are now missing."
        ),
        "impact": "2",
        "urgency": "1",
        "group": "Database",
        "keywords": ("db2", "sql30081n", "batch"),
        "kb_topic": "db2_sql30081n",
        "ci_kind": "linux_db_server",
    },
    {
        "category": "database",
        "subcategory": "ms sql server",
        "short_description": "Excel report can't connect after laptop replacement",
        "description": (
            "Since I got my new laptop, my Excel report that pulls data from SQL Server fails with "
            "'Data source name not found and no default driver specified'. It worked fine on my old laptop."
        ),
        "impact": "3",
        "urgency": "3",
        "group": "Database",
        "keywords": ("odbc", "excel", "dsn"),
        "kb_topic": "odbc_dsn_setup",
        "ci_kind": None,
    },
    {
        "category": "database",
        "subcategory": "ms sql server",
        "short_description": "Orders failing with deadlock victim error",
        "description": (
            "Several order entry users get 'Transaction was deadlocked on lock resources with "
            "another process and has been chosen as the deadlock victim' when saving orders. It "
            "started after lunch."
        ),
        "impact": "2",
        "urgency": "2",
        "group": "Database",
        "keywords": ("deadlock", "1205", "orders"),
        "kb_topic": "sqlserver_deadlock_1205",
        "ci_kind": "windows_db_server",
    },
    {
        "category": "database",
        "subcategory": "oracle",
        "short_description": "GL posting fails with ORA-01653 unable to extend table",
        "description": (
            "Journal posting in Oracle E-Business Suite fails for everyone with ORA-01653: unable "
            "to extend table in tablespace FIN_DATA. We are in the middle of the quarter-end close."
        ),
        "impact": "1",
        "urgency": "1",
        "group": "Database",
        "keywords": ("oracle", "tablespace", "ora-01653"),
        "kb_topic": "oracle_tablespace_full",
        "ci_kind": "linux_db_server",
    },
    {
        "category": "database",
        "subcategory": "oracle",
        "short_description": "Need the UAT database refreshed before testing",
        "description": (
            "We start user acceptance testing for the new release in two weeks and the UAT data is "
            "six months old. Could the UAT database be refreshed from production?"
        ),
        "impact": "3",
        "urgency": "3",
        "group": "Database",
        "keywords": ("refresh", "uat", "clone"),
        "kb_topic": "database_refresh_request",
        "ci_kind": "linux_db_server",
    },
    {
        "category": "database",
        "subcategory": "ms sql server",
        "short_description": "SSMS: certificate chain issued by an untrusted authority",
        "description": (
            "After updating SQL Server Management Studio I can't connect to {ci_name}. The error says "
            "the certificate chain was issued by an authority that is not trusted."
        ),
        "impact": "3",
        "urgency": "3",
        "group": "Database",
        "keywords": ("ssms", "certificate", "encryption"),
        "kb_topic": "ssms_certificate_error",
        "ci_kind": "windows_db_server",
    },
    {
        "category": "database",
        "subcategory": "ms sql server",
        "short_description": "Database server down - application can't connect",
        "description": (
            "{app_name} shows 'A network-related or instance-specific error occurred while "
            "establishing a connection to SQL Server'. Monitoring shows {ci_name} is not responding."
        ),
        "impact": "1",
        "urgency": "1",
        "group": "Database",
        "keywords": ("database", "outage", "connection"),
        "kb_topic": None,
        "ci_kind": "windows_db_server",
    },
    {
        "category": "database",
        "subcategory": "db2",
        "short_description": "DB2 database not responding to queries",
        "description": (
            "Queries against the DB2 warehouse on {ci_name} hang and never return. The load jobs are "
            "queued behind them. Reports for the morning meeting are not ready."
        ),
        "impact": "2",
        "urgency": "1",
        "group": "Database",
        "keywords": ("db2", "hang", "warehouse"),
        "kb_topic": None,
        "ci_kind": "linux_db_server",
    },
    {
        "category": "database",
        "subcategory": "oracle",
        "short_description": "Tableau extract fails with ORA-01017 invalid username/password",
        "description": (
            "The overnight Tableau refresh for the margin dashboard failed with ORA-01017: invalid "
            "username/password. I think the database password for the report account was changed."
        ),
        "impact": "3",
        "urgency": "2",
        "group": "Database",
        "keywords": ("oracle", "ora-01017", "tableau"),
        "kb_topic": "oracle_invalid_login",
        "ci_kind": "linux_db_server",
    },
)

# ---------------------------------------------------------------------------
# Configuration items
# ---------------------------------------------------------------------------

CI_CATALOG: Final[tuple[CiKindSpec, ...]] = (
    {
        "kind": "linux_app_server",
        "sys_class_name": "cmdb_ci_linux_server",
        "name_patterns": ("lnx-app-{n:02d}", "lnx-web-{n:02d}"),
        "names": (),
        "category": "Hardware",
        "subcategory": "Computer",
        "model_numbers": (
            "Dell PowerEdge R650",
            "Dell PowerEdge R750",
            "HPE ProLiant DL360 Gen10 Plus",
            "VMware Virtual Platform",
        ),
        "os": ("Red Hat Enterprise Linux 8", "Red Hat Enterprise Linux 9", "Ubuntu 22.04 LTS"),
        "operational_status": "1",
        "support_group": "Applications",
    },
    {
        "kind": "windows_app_server",
        "sys_class_name": "cmdb_ci_win_server",
        "name_patterns": ("win-app-{n:02d}",),
        "names": (),
        "category": "Hardware",
        "subcategory": "Computer",
        "model_numbers": (
            "Dell PowerEdge R650",
            "HPE ProLiant DL380 Gen10 Plus",
            "VMware Virtual Platform",
        ),
        "os": ("Windows Server 2019 Standard", "Windows Server 2022 Standard"),
        "operational_status": "1",
        "support_group": "Applications",
    },
    {
        "kind": "linux_db_server",
        "sys_class_name": "cmdb_ci_linux_server",
        "name_patterns": ("lnx-db-{n:02d}",),
        "names": (),
        "category": "Hardware",
        "subcategory": "Computer",
        "model_numbers": (
            "Dell PowerEdge R760",
            "HPE ProLiant DL380 Gen11",
            "Oracle Exadata X9M-2",
        ),
        "os": ("Oracle Linux 8", "Red Hat Enterprise Linux 8", "Red Hat Enterprise Linux 9"),
        "operational_status": "1",
        "support_group": "Database",
    },
    {
        "kind": "windows_db_server",
        "sys_class_name": "cmdb_ci_win_server",
        "name_patterns": ("win-db-{n:02d}",),
        "names": (),
        "category": "Hardware",
        "subcategory": "Computer",
        "model_numbers": ("Dell PowerEdge R760", "HPE ProLiant DL380 Gen11", "VMware Virtual Platform"),
        "os": ("Windows Server 2019 Datacenter", "Windows Server 2022 Datacenter"),
        "operational_status": "1",
        "support_group": "Database",
    },
    {
        "kind": "windows_infra_server",
        "sys_class_name": "cmdb_ci_win_server",
        "name_patterns": ("win-dc-{n:02d}", "win-file-{n:02d}", "win-print-{n:02d}"),
        "names": (),
        "category": "Hardware",
        "subcategory": "Computer",
        "model_numbers": ("Dell PowerEdge R450", "HPE ProLiant DL360 Gen10 Plus", "VMware Virtual Platform"),
        "os": ("Windows Server 2019 Standard", "Windows Server 2022 Standard"),
        "operational_status": "1",
        "support_group": "Hardware",
    },
    {
        "kind": "laptop",
        "sys_class_name": "cmdb_ci_computer",
        "name_patterns": ("lt-{n:05d}",),
        "names": (),
        "category": "Hardware",
        "subcategory": "Computer",
        "model_numbers": (
            "Dell Latitude 7440",
            "Dell Latitude 5540",
            "Dell Precision 5680",
            "Lenovo ThinkPad T14 Gen 4",
            "Lenovo ThinkPad X1 Carbon Gen 11",
            "HP EliteBook 840 G10",
        ),
        "os": ("Windows 11 Enterprise",),
        "operational_status": "1",
        "support_group": "Hardware",
    },
    {
        "kind": "macbook",
        "sys_class_name": "cmdb_ci_computer",
        "name_patterns": ("mac-{n:05d}",),
        "names": (),
        "category": "Hardware",
        "subcategory": "Computer",
        "model_numbers": ("Apple MacBook Pro 14", "Apple MacBook Pro 16", "Apple MacBook Air 13"),
        "os": ("macOS 14 Sonoma", "macOS 15 Sequoia"),
        "operational_status": "1",
        "support_group": "Hardware",
    },
    {
        "kind": "application",
        "sys_class_name": "cmdb_ci_appl",
        "name_patterns": (),
        "names": (
            "SAP ERP",
            "Salesforce",
            "Workday",
            "Jira",
            "Confluence",
            "Microsoft 365",
            "Zoom",
            "Slack",
            "ServiceNow",
            "Tableau",
            "Concur",
            "DocuSign",
            "GitHub Enterprise",
            "Okta",
            "Oracle E-Business Suite",
        ),
        "category": "Software",
        "subcategory": "Application",
        "model_numbers": (),
        "os": (),
        "operational_status": "1",
        "support_group": "Applications",
    },
    {
        "kind": "network_switch",
        "sys_class_name": "cmdb_ci_ip_switch",
        "name_patterns": ("core-sw-{n:02d}", "acc-sw-{n:02d}"),
        "names": (),
        "category": "Hardware",
        "subcategory": "Network",
        "model_numbers": ("Cisco Catalyst 9500-48Y4C", "Cisco Catalyst 9300-48P", "Cisco Catalyst 9200L-24P"),
        "os": ("Cisco IOS XE 17.9", "Cisco IOS XE 17.12"),
        "operational_status": "1",
        "support_group": "Network",
    },
    {
        "kind": "firewall",
        "sys_class_name": "cmdb_ci_ip_firewall",
        "name_patterns": ("fw-edge-{n:02d}",),
        "names": (),
        "category": "Hardware",
        "subcategory": "Network",
        "model_numbers": ("Palo Alto Networks PA-3220", "Palo Alto Networks PA-5220"),
        "os": ("PAN-OS 10.2", "PAN-OS 11.1"),
        "operational_status": "1",
        "support_group": "Network",
    },
    {
        "kind": "wireless_controller",
        "sys_class_name": "cmdb_ci_netgear",
        "name_patterns": ("wlc-{n:02d}",),
        "names": (),
        "category": "Hardware",
        "subcategory": "Network",
        "model_numbers": ("Cisco Catalyst 9800-40", "Cisco Catalyst 9800-L"),
        "os": ("Cisco IOS XE 17.9",),
        "operational_status": "1",
        "support_group": "Network",
    },
    {
        "kind": "vpn_gateway",
        "sys_class_name": "cmdb_ci_netgear",
        "name_patterns": ("vpn-gw-{n:02d}",),
        "names": (),
        "category": "Hardware",
        "subcategory": "Network",
        "model_numbers": ("Palo Alto Networks PA-3410", "Palo Alto Networks VM-300"),
        "os": ("PAN-OS 10.2", "PAN-OS 11.1"),
        "operational_status": "1",
        "support_group": "Network",
    },
)

#: Which group supports each business application (names match the ``application`` CI kind).
APPLICATION_SUPPORT_GROUPS: Final[dict[str, str]] = {
    "SAP ERP": "Applications",
    "Salesforce": "Applications",
    "Workday": "Applications",
    "Jira": "Applications",
    "Confluence": "Applications",
    "Microsoft 365": "Email",
    "Zoom": "Applications",
    "Slack": "Applications",
    "ServiceNow": "Applications",
    "Tableau": "Applications",
    "Concur": "Applications",
    "DocuSign": "Applications",
    "GitHub Enterprise": "Applications",
    "Okta": "Identity and Access",
    "Oracle E-Business Suite": "Applications",
}

# ---------------------------------------------------------------------------
# Service catalog
# ---------------------------------------------------------------------------

CATALOG_ITEMS: Final[tuple[CatalogItemSpec, ...]] = (
    {
        "name": "Standard Laptop",
        "short_description": "Dell Latitude 7440, 16 GB RAM, 512 GB SSD, Windows 11 for general office work",
        "category": "Hardware",
        "price": "1299.00",
        "group": "Hardware",
    },
    {
        "name": "Developer Laptop",
        "short_description": "Dell Precision 5680, 64 GB RAM, 1 TB SSD, for engineering and data roles",
        "category": "Hardware",
        "price": "2499.00",
        "group": "Hardware",
    },
    {
        "name": "MacBook Pro",
        "short_description": "Apple MacBook Pro 14 (M3 Pro, 36 GB, 1 TB) for design and engineering",
        "category": "Hardware",
        "price": "2899.00",
        "group": "Hardware",
    },
    {
        "name": "27-inch 4K Monitor",
        "short_description": "Dell UltraSharp U2723QE with USB-C, height-adjustable stand",
        "category": "Peripherals",
        "price": "449.00",
        "group": "Hardware",
    },
    {
        "name": "24-inch Monitor",
        "short_description": "Dell P2425H full HD monitor for desks and hot-desking areas",
        "category": "Peripherals",
        "price": "189.00",
        "group": "Hardware",
    },
    {
        "name": "Wireless Headset",
        "short_description": "Jabra Evolve2 65 stereo headset, certified for Teams and Zoom",
        "category": "Peripherals",
        "price": "229.00",
        "group": "Hardware",
    },
    {
        "name": "USB-C Docking Station",
        "short_description": "Dell WD22TB4 dock with 180 W power, two DisplayPort outputs and Ethernet",
        "category": "Peripherals",
        "price": "279.00",
        "group": "Hardware",
    },
    {
        "name": "Wireless Keyboard and Mouse",
        "short_description": "Logitech MX Keys and MX Master 3S set with Logi Bolt receiver",
        "category": "Peripherals",
        "price": "199.00",
        "group": "Hardware",
    },
    {
        "name": "Replacement Laptop Charger",
        "short_description": "Original 65 W or 90 W USB-C charger matched to your laptop model",
        "category": "Peripherals",
        "price": "69.00",
        "group": "Hardware",
    },
    {
        "name": "Mobile Phone",
        "short_description": "Company iPhone or Android phone with voice and 20 GB data plan",
        "category": "Mobile",
        "price": "899.00",
        "group": "Hardware",
    },
    {
        "name": "Adobe Acrobat Pro",
        "short_description": "Annual named-user licence to create, edit and sign PDF documents",
        "category": "Software",
        "price": "239.88",
        "group": "Applications",
    },
    {
        "name": "Microsoft Visio",
        "short_description": "Visio Plan 2 annual licence for diagrams and process flows",
        "category": "Software",
        "price": "180.00",
        "group": "Applications",
    },
    {
        "name": "JetBrains All Products Pack",
        "short_description": "Annual floating licence for IntelliJ IDEA, PyCharm, GoLand and other IDEs",
        "category": "Software",
        "price": "779.00",
        "group": "Applications",
    },
    {
        "name": "New Hire Onboarding Bundle",
        "short_description": (
            "Laptop, monitor, headset, accounts and standard application access for a new starter"
        ),
        "category": "Services",
        "price": "2150.00",
        "group": "Service Desk",
    },
    {
        "name": "VPN Access",
        "short_description": "Remote access VPN for company-managed devices, including restricted networks",
        "category": "Access",
        "price": "0.00",
        "group": "Network",
    },
    {
        "name": "Application Access",
        "short_description": "Access or a new role in a business application such as SAP, Salesforce or Jira",
        "category": "Access",
        "price": "0.00",
        "group": "Identity and Access",
    },
    {
        "name": "Shared Folder Access",
        "short_description": "Read or read/write access to a folder on a department file share",
        "category": "Access",
        "price": "0.00",
        "group": "Identity and Access",
    },
    {
        "name": "Service Account",
        "short_description": "Non-personal account for an application, script or integration",
        "category": "Access",
        "price": "0.00",
        "group": "Identity and Access",
    },
    {
        "name": "Shared Mailbox",
        "short_description": "New shared mailbox for a team, with Full Access and Send As for named members",
        "category": "Email",
        "price": "0.00",
        "group": "Email",
    },
    {
        "name": "Distribution List",
        "short_description": "Create a distribution list or change its members, owners or sender rules",
        "category": "Email",
        "price": "0.00",
        "group": "Email",
    },
    {
        "name": "Database Access Request",
        "short_description": "Read-only access to a reporting database, approved by the data owner",
        "category": "Access",
        "price": "0.00",
        "group": "Database",
    },
    {
        "name": "Database Refresh",
        "short_description": "Refresh a test or UAT database with a masked copy of production data",
        "category": "Services",
        "price": "0.00",
        "group": "Database",
    },
)

# ---------------------------------------------------------------------------
# Change requests
# ---------------------------------------------------------------------------

CHANGE_TEMPLATES: Final[tuple[ChangeTemplateSpec, ...]] = (
    # ----- Standard (pre-approved) -----------------------------------------
    {
        "type": "standard",
        "short_description": "Apply monthly Windows security updates to {ci_name}",
        "description": (
            "Install this month's Microsoft cumulative and security updates on {ci_name} during the "
            "Saturday maintenance window, followed by a reboot."
        ),
        "justification": (
            "Keeps the server within the 30-day patch compliance target and closes published CVEs."
        ),
        "implementation_plan": (
            "1. Confirm the latest backup of {ci_name} completed successfully.\n"
            "2. Put the server into maintenance mode in monitoring.\n"
            "3. Approve the updates in WSUS and trigger installation.\n"
            "4. Reboot and wait for all automatic services to start.\n"
            "5. Remove maintenance mode."
        ),
        "backout_plan": (
            "Uninstall the cumulative update with wusa /uninstall and reboot. If the server does not "
            "start, restore the pre-change VM snapshot."
        ),
        "test_plan": (
            "Check Windows Update history shows success, all automatic services are running and the "
            "application health check URL returns HTTP 200."
        ),
        "risk": "4",
        "impact": "3",
        "category": "Software",
        "group": "Applications",
        "ci_kind": "windows_app_server",
    },
    {
        "type": "standard",
        "short_description": "Apply monthly Red Hat errata to {ci_name}",
        "description": "Apply outstanding RHSA security errata to {ci_name} and reboot onto the new kernel.",
        "justification": "Monthly Linux patching baseline; includes kernel and OpenSSL security fixes.",
        "implementation_plan": (
            "1. Snapshot the VM or confirm a successful backup.\n"
            "2. Stop application services with systemctl.\n"
            "3. Run dnf update --security -y.\n"
            "4. Reboot and confirm the new kernel with uname -r.\n"
            "5. Start application services."
        ),
        "backout_plan": (
            "Boot the previous kernel from the GRUB menu and run dnf history undo for the patch "
            "transaction. Restore the snapshot if services still fail."
        ),
        "test_plan": (
            "Confirm services are active, the load balancer marks the node healthy and no new errors appear "
            "in the logs."
        ),
        "risk": "4",
        "impact": "3",
        "category": "Software",
        "group": "Applications",
        "ci_kind": "linux_app_server",
    },
    {
        "type": "standard",
        "short_description": "Renew TLS certificate on {ci_name}",
        "description": (
            "Replace the web server certificate on {ci_name}, which expires within 30 days, with a "
            "new certificate issued by the company CA."
        ),
        "justification": (
            "Prevents browser certificate errors and integration failures when the current certificate "
            "expires."
        ),
        "implementation_plan": (
            "1. Generate a CSR with the existing subject and SAN entries.\n"
            "2. Submit the CSR to the company CA and download the issued certificate and chain.\n"
            "3. Install the certificate and update the web server configuration.\n"
            "4. Reload the web server."
        ),
        "backout_plan": (
            "Restore the previous certificate and key from the backup directory and reload the web server."
        ),
        "test_plan": (
            "Check the new expiry date with openssl s_client and open the site in a browser without warnings."
        ),
        "risk": "4",
        "impact": "3",
        "category": "Software",
        "group": "Applications",
        "ci_kind": "linux_app_server",
    },
    {
        "type": "standard",
        "short_description": "Refresh UAT database from production on {ci_name}",
        "description": (
            "Refresh the UAT database on {ci_name} with a masked copy of last night's production "
            "backup for the upcoming test cycle."
        ),
        "justification": "Test teams need current data volumes; the UAT copy is six months old.",
        "implementation_plan": (
            "1. Export preserved UAT configuration tables and test users.\n"
            "2. Restore the production backup to {ci_name} with RMAN duplicate.\n"
            "3. Run the data masking job.\n"
            "4. Re-import preserved configuration and disable outbound interfaces.\n"
            "5. Hand over to the application team."
        ),
        "backout_plan": "Restore the pre-refresh UAT backup taken at the start of the change.",
        "test_plan": (
            "Application team logs in, runs the smoke test suite and confirms masked fields contain no real "
            "names."
        ),
        "risk": "4",
        "impact": "3",
        "category": "Database",
        "group": "Database",
        "ci_kind": "linux_db_server",
    },
    {
        "type": "standard",
        "short_description": "Add VLAN for new team area to access switch {ci_name}",
        "description": (
            "Create the data VLAN for the renovated team area and assign the new desk ports on {ci_name}."
        ),
        "justification": "Required for desk ports in the renovated area to be usable.",
        "implementation_plan": (
            "1. Back up the running configuration.\n"
            "2. Create the VLAN and add it to the uplink trunk.\n"
            "3. Assign the listed ports as access ports with port security.\n"
            "4. Save the configuration."
        ),
        "backout_plan": "Remove the VLAN from the trunk and restore the saved configuration file.",
        "test_plan": (
            "Plug a test laptop into two of the ports and confirm it receives a DHCP address in the new "
            "range."
        ),
        "risk": "4",
        "impact": "3",
        "category": "Network",
        "group": "Network",
        "ci_kind": "network_switch",
    },
    {
        "type": "standard",
        "short_description": "Replace failed RAID disk in {ci_name}",
        "description": (
            "Hot-swap the failed physical disk reported by the RAID controller on {ci_name} with the "
            "replacement shipped by the vendor."
        ),
        "justification": "The array is running degraded; a second disk failure would cause data loss.",
        "implementation_plan": (
            "1. Confirm the failed slot in the iDRAC or iLO console.\n"
            "2. Blink the drive LED and have the data centre technician replace the disk.\n"
            "3. Confirm the rebuild starts automatically."
        ),
        "backout_plan": (
            "Reinsert the original disk and open a vendor case if the controller rejects the new one."
        ),
        "test_plan": "Rebuild completes and the virtual disk status returns to Optimal.",
        "risk": "4",
        "impact": "3",
        "category": "Hardware",
        "group": "Hardware",
        "ci_kind": "linux_db_server",
    },
    {
        "type": "standard",
        "short_description": "Add 50 GB to tablespace FIN_DATA on {ci_name}",
        "description": "Add a new data file to the FIN_DATA tablespace on {ci_name}, which is over 90% full.",
        "justification": "Capacity alert; month-end loads are expected to need another 30 GB.",
        "implementation_plan": (
            "1. Confirm free space on the ASM disk group.\n"
            "2. Run ALTER TABLESPACE FIN_DATA ADD DATAFILE with autoextend up to 32 GB.\n"
            "3. Repeat for a second data file."
        ),
        "backout_plan": "Drop the new data files if they contain no segments.",
        "test_plan": "DBA_FREE_SPACE shows the expected increase and the capacity alert clears.",
        "risk": "4",
        "impact": "3",
        "category": "Database",
        "group": "Database",
        "ci_kind": "linux_db_server",
    },
    {
        "type": "standard",
        "short_description": "Create internal DNS record for {ci_name}",
        "description": "Add A and PTR records for {ci_name} in the corp.example.com zone.",
        "justification": (
            "New server needs a resolvable name before the application team can install software."
        ),
        "implementation_plan": (
            "1. Confirm the IP address is reserved in IPAM.\n"
            "2. Create the A record and the matching PTR record.\n"
            "3. Wait for zone replication."
        ),
        "backout_plan": "Delete the A and PTR records.",
        "test_plan": "nslookup returns the correct address from two different DNS servers.",
        "risk": "4",
        "impact": "3",
        "category": "Network",
        "group": "Network",
        "ci_kind": "linux_app_server",
    },
    {
        "type": "standard",
        "short_description": "Deploy dock firmware update to pilot laptops",
        "description": (
            "Publish the latest WD19/WD22 dock firmware through Company Portal as a required update "
            "for the 50-device IT pilot ring."
        ),
        "justification": (
            "The new firmware fixes external monitors not waking after sleep, a top ten incident driver."
        ),
        "implementation_plan": (
            "1. Upload the firmware package to Intune.\n"
            "2. Assign it as required to the IT Pilot group.\n"
            "3. Monitor install status for 48 hours."
        ),
        "backout_plan": (
            "Remove the assignment; affected docks can be downgraded with the previous firmware package."
        ),
        "test_plan": (
            "Pilot users confirm displays wake correctly after sleep; no new dock incidents from the pilot "
            "group."
        ),
        "risk": "4",
        "impact": "3",
        "category": "Hardware",
        "group": "Hardware",
        "ci_kind": None,
    },
    # ----- Normal ----------------------------------------------------------
    {
        "type": "normal",
        "short_description": "Upgrade IOS XE on core switch {ci_name}",
        "description": (
            "Upgrade {ci_name} to the recommended IOS XE release to fix a memory leak that has caused "
            "two unplanned reloads this quarter."
        ),
        "justification": (
            "Vendor bug with known fix; both unplanned reloads caused site-wide outages at {location}."
        ),
        "implementation_plan": (
            "1. Copy the new image to flash and verify the MD5 checksum.\n"
            "2. Back up the running configuration.\n"
            "3. Fail traffic over to the redundant core switch.\n"
            "4. Install the image in install mode and reload.\n"
            "5. Restore traffic and repeat on the peer switch in a separate change."
        ),
        "backout_plan": "Roll back to the previous image with install rollback and reload.",
        "test_plan": (
            "Check all uplinks and port-channels are up, OSPF neighbours are established and a sample "
            "of users on each floor can reach the internet and the data centre."
        ),
        "risk": "2",
        "impact": "1",
        "category": "Network",
        "group": "Network",
        "ci_kind": "network_switch",
    },
    {
        "type": "normal",
        "short_description": "Upgrade PAN-OS on firewall {ci_name}",
        "description": (
            "Upgrade the HA firewall pair that includes {ci_name} to the current preferred PAN-OS release."
        ),
        "justification": (
            "Current release reaches end of support next quarter and has open vulnerability advisories."
        ),
        "implementation_plan": (
            "1. Download and install the new content and software versions.\n"
            "2. Suspend the passive peer, upgrade and reboot it.\n"
            "3. Fail over and upgrade the other peer.\n"
            "4. Confirm HA sync."
        ),
        "backout_plan": "Downgrade each peer to the saved previous version and load the saved configuration.",
        "test_plan": "Verify VPN tunnels, GlobalProtect logins and a list of critical application flows.",
        "risk": "2",
        "impact": "1",
        "category": "Network",
        "group": "Network",
        "ci_kind": "firewall",
    },
    {
        "type": "normal",
        "short_description": "Add firewall rule for {app_name} integration",
        "description": (
            "Allow HTTPS from the integration server subnet to the {app_name} API endpoints through "
            "{ci_name}."
        ),
        "justification": (
            "New integration approved by the architecture board; currently blocked by the default deny rule."
        ),
        "implementation_plan": (
            "1. Create address objects for the source subnet and destination FQDNs.\n"
            "2. Add a security rule above the default deny, application ssl, service tcp/443.\n"
            "3. Commit and push to both HA peers."
        ),
        "backout_plan": "Disable the new rule and commit.",
        "test_plan": (
            "Integration team runs a test call; traffic log shows the new rule matching with action allow."
        ),
        "risk": "3",
        "impact": "2",
        "category": "Network",
        "group": "Network",
        "ci_kind": "firewall",
    },
    {
        "type": "normal",
        "short_description": "Apply Oracle quarterly Release Update on {ci_name}",
        "description": (
            "Apply the latest Oracle Database Release Update and OJVM patch to the databases on {ci_name}."
        ),
        "justification": "Quarterly critical patch update; addresses security vulnerabilities rated high.",
        "implementation_plan": (
            "1. Take a level 0 RMAN backup.\n"
            "2. Stop the application and the listener.\n"
            "3. Apply the RU with opatchauto.\n"
            "4. Run datapatch and recompile invalid objects.\n"
            "5. Start the listener and the application."
        ),
        "backout_plan": (
            "Roll back the patch with opatchauto rollback and datapatch, or restore from the RMAN backup."
        ),
        "test_plan": (
            "opatch lspatches shows the new RU, no new invalid objects and the application smoke test passes."
        ),
        "risk": "3",
        "impact": "2",
        "category": "Database",
        "group": "Database",
        "ci_kind": "linux_db_server",
    },
    {
        "type": "normal",
        "short_description": "Apply SQL Server cumulative update to {ci_name}",
        "description": (
            "Install the latest SQL Server cumulative update on the Always On replicas of {ci_name}."
        ),
        "justification": (
            "Fixes a known query optimiser regression affecting order entry and includes security fixes."
        ),
        "implementation_plan": (
            "1. Patch the secondary replica and reboot.\n"
            "2. Fail the availability group over to the patched replica.\n"
            "3. Patch the former primary and reboot.\n"
            "4. Fail back during the window."
        ),
        "backout_plan": (
            "Uninstall the cumulative update on each replica and fail over to the unpatched replica if "
            "needed."
        ),
        "test_plan": (
            "SELECT @@VERSION shows the new build, AG is synchronised and the order entry smoke test passes."
        ),
        "risk": "3",
        "impact": "2",
        "category": "Database",
        "group": "Database",
        "ci_kind": "windows_db_server",
    },
    {
        "type": "normal",
        "short_description": "Add 64 GB memory to {ci_name}",
        "description": "Install additional memory in {ci_name} to address sustained memory pressure.",
        "justification": "Server pages heavily at peak times, causing slow responses for {app_name} users.",
        "implementation_plan": (
            "1. Shut down the server gracefully.\n"
            "2. Install the DIMMs in the slots specified by the vendor population guide.\n"
            "3. Power on and check POST.\n"
            "4. Start services."
        ),
        "backout_plan": "Remove the new DIMMs and restart the server.",
        "test_plan": (
            "Operating system reports the new total memory and no memory errors appear in the hardware log."
        ),
        "risk": "3",
        "impact": "2",
        "category": "Hardware",
        "group": "Hardware",
        "ci_kind": "windows_app_server",
    },
    {
        "type": "normal",
        "short_description": "Replace wireless access points on the third floor at {location}",
        "description": (
            "Replace twelve end-of-life access points on the third floor and update the controller "
            "configuration."
        ),
        "justification": (
            "Old access points are out of support and are the source of repeated Wi-Fi drop incidents."
        ),
        "implementation_plan": (
            "1. Pre-provision the new access points on {ci_name}.\n"
            "2. Swap access points one zone at a time after hours.\n"
            "3. Apply the floor RF profile.\n"
            "4. Run a walk test."
        ),
        "backout_plan": "Reinstall the old access points, which are kept on site until the change is closed.",
        "test_plan": "Walk test shows signal above -67 dBm across the floor and clients roam without drops.",
        "risk": "3",
        "impact": "2",
        "category": "Network",
        "group": "Network",
        "ci_kind": "wireless_controller",
    },
    {
        "type": "normal",
        "short_description": "Increase GlobalProtect user capacity on {ci_name}",
        "description": "Apply the larger GlobalProtect licence and raise the IP pool size on {ci_name}.",
        "justification": "Peak concurrent users reached 95% of capacity on three days last month.",
        "implementation_plan": (
            "1. Apply the new licence key.\n"
            "2. Extend the client IP pool.\n"
            "3. Add the new pool range to the routing and firewall objects.\n"
            "4. Commit."
        ),
        "backout_plan": "Revert to the previous configuration version and commit.",
        "test_plan": "New connections receive addresses from the extended pool and reach internal resources.",
        "risk": "3",
        "impact": "2",
        "category": "Network",
        "group": "Network",
        "ci_kind": "vpn_gateway",
    },
    {
        "type": "normal",
        "short_description": "Enable Okta Verify number matching for all users",
        "description": "Turn on number challenge for all Okta Verify push sign-ins.",
        "justification": (
            "Reduces the risk of MFA fatigue attacks; two users approved fraudulent prompts last quarter."
        ),
        "implementation_plan": (
            "1. Publish communication to all staff one week ahead.\n"
            "2. Enable number challenge in the authenticator settings for the pilot group.\n"
            "3. After one week, extend to all users."
        ),
        "backout_plan": "Set number challenge back to Never in the authenticator settings.",
        "test_plan": "Pilot users see a number on the sign-in page and must select it in Okta Verify.",
        "risk": "3",
        "impact": "1",
        "category": "Software",
        "group": "Identity and Access",
        "ci_kind": "application",
    },
    {
        "type": "normal",
        "short_description": "Renew SAML signing certificate for {app_name}",
        "description": (
            "Rotate the Okta SAML signing certificate used by {app_name} and upload the new "
            "certificate to the application."
        ),
        "justification": (
            "Current certificate expires in 21 days; expiry would block all sign-ins to {app_name}."
        ),
        "implementation_plan": (
            "1. Generate a new signing certificate in Okta.\n"
            "2. Upload it to {app_name} as a secondary certificate.\n"
            "3. Activate the new certificate in Okta.\n"
            "4. Remove the old certificate after 24 hours."
        ),
        "backout_plan": "Reactivate the previous certificate in Okta.",
        "test_plan": "Test users from three departments sign in to {app_name} through the Okta tile.",
        "risk": "3",
        "impact": "1",
        "category": "Software",
        "group": "Identity and Access",
        "ci_kind": "application",
    },
    {
        "type": "normal",
        "short_description": "Quarantine bulk mail by default in Exchange Online",
        "description": (
            "Change the anti-spam policy so that messages with a bulk complaint level of 7 or more go to "
            "quarantine."
        ),
        "justification": (
            "Marketing bulk mail is a growing share of phishing reports and wastes analyst time."
        ),
        "implementation_plan": (
            "1. Update the default anti-spam policy bulk threshold and action.\n"
            "2. Enable the quarantine notification digest.\n"
            "3. Publish a knowledge article on releasing quarantined mail."
        ),
        "backout_plan": "Restore the previous bulk threshold and set the action back to Junk Email folder.",
        "test_plan": "Send test bulk messages from the simulation tool and confirm they land in quarantine.",
        "risk": "3",
        "impact": "2",
        "category": "Software",
        "group": "Email",
        "ci_kind": "application",
    },
    {
        "type": "normal",
        "short_description": "Deploy Microsoft 365 Apps semi-annual update to all laptops",
        "description": (
            "Move all Windows laptops from the previous to the current Semi-Annual Enterprise Channel build."
        ),
        "justification": "The previous build leaves support at the end of the month.",
        "implementation_plan": (
            "1. Release to the IT pilot ring.\n"
            "2. After one week, release to 20% of devices.\n"
            "3. After a further week, release to all devices."
        ),
        "backout_plan": "Pause the update ring and pin affected devices to the previous build.",
        "test_plan": (
            "Pilot users confirm Outlook, Teams add-ins and Excel macros work; crash telemetry stays flat."
        ),
        "risk": "3",
        "impact": "1",
        "category": "Software",
        "group": "Applications",
        "ci_kind": None,
    },
    {
        "type": "normal",
        "short_description": "Upgrade {app_name} to the next vendor release",
        "description": (
            "Upgrade the production {app_name} instance on {ci_name} to the vendor's latest supported "
            "release."
        ),
        "justification": (
            "Current release reaches end of support; the upgrade also contains fixes for open problems."
        ),
        "implementation_plan": (
            "1. Freeze configuration changes.\n"
            "2. Back up the application and database.\n"
            "3. Run the vendor upgrade procedure.\n"
            "4. Re-apply custom configuration.\n"
            "5. Open the application to users."
        ),
        "backout_plan": "Restore the application and database backups taken in step 2.",
        "test_plan": "Business testers run the regression checklist signed off in UAT.",
        "risk": "2",
        "impact": "2",
        "category": "Software",
        "group": "Applications",
        "ci_kind": "linux_app_server",
    },
    {
        "type": "normal",
        "short_description": "Replace failed power supply in {ci_name}",
        "description": (
            "Replace the failed redundant power supply in {ci_name}; the device is running on a single PSU."
        ),
        "justification": "Loss of the remaining power supply would take the device down.",
        "implementation_plan": (
            "1. Confirm which PSU has failed.\n"
            "2. Hot-swap the failed unit with the vendor replacement.\n"
            "3. Confirm both supplies report OK."
        ),
        "backout_plan": "Reinsert the original PSU and escalate to the vendor.",
        "test_plan": "show environment power reports both supplies OK and no alarms remain.",
        "risk": "3",
        "impact": "2",
        "category": "Hardware",
        "group": "Network",
        "ci_kind": "network_switch",
    },
    {
        "type": "normal",
        "short_description": "Decommission retired server {ci_name}",
        "description": "Shut down and decommission {ci_name}, whose application was migrated last quarter.",
        "justification": (
            "Reduces licence and support costs and removes an unpatched operating system from the network."
        ),
        "implementation_plan": (
            "1. Confirm no connections in the last 30 days.\n"
            "2. Take a final backup and keep it for 90 days.\n"
            "3. Shut down the server and remove DNS records.\n"
            "4. Set the CI to Retired."
        ),
        "backout_plan": "Power the server back on and restore DNS records.",
        "test_plan": "No incidents or monitoring alerts referring to the server in the following week.",
        "risk": "4",
        "impact": "3",
        "category": "Other",
        "group": "Hardware",
        "ci_kind": "windows_app_server",
    },
    {
        "type": "normal",
        "short_description": "Annual UPS maintenance in the {location} server room",
        "description": (
            "Vendor preventive maintenance on the UPS, including battery tests, with the UPS in bypass mode."
        ),
        "justification": "Required by the maintenance contract and to keep the battery warranty valid.",
        "implementation_plan": (
            "1. Notify site staff.\n"
            "2. Switch the UPS to maintenance bypass.\n"
            "3. Vendor performs inspection and battery tests.\n"
            "4. Return the UPS to online mode."
        ),
        "backout_plan": "Return the UPS to online mode immediately if mains power is unstable.",
        "test_plan": "UPS reports online mode with full battery runtime; no equipment lost power.",
        "risk": "2",
        "impact": "2",
        "category": "Other",
        "group": "Hardware",
        "ci_kind": None,
    },
    {
        "type": "normal",
        "short_description": "Migrate department shares from {ci_name} to the new file cluster",
        "description": "Move department shares from {ci_name} to the new file cluster and update DFS links.",
        "justification": "The current file server is out of warranty and at 92% disk capacity.",
        "implementation_plan": (
            "1. Pre-seed the data with Robocopy.\n"
            "2. Set the old shares to read-only.\n"
            "3. Run the final delta copy.\n"
            "4. Switch the DFS namespace targets.\n"
            "5. Remove the old targets."
        ),
        "backout_plan": "Point the DFS targets back to the original shares and set them to read/write.",
        "test_plan": "Users from each department open and save files through the usual drive letters.",
        "risk": "3",
        "impact": "2",
        "category": "Other",
        "group": "Hardware",
        "ci_kind": "windows_infra_server",
    },
    # ----- Emergency -------------------------------------------------------
    {
        "type": "emergency",
        "short_description": "Emergency: extend full tablespace on {ci_name}",
        "description": (
            "Add data files to the full FIN_DATA tablespace on {ci_name}; GL posting is failing with "
            "ORA-01653."
        ),
        "justification": "Quarter-end close is blocked for the whole finance team.",
        "implementation_plan": (
            "1. Add two 32 GB data files to FIN_DATA.\n2. Ask Finance to restart the failed posting job."
        ),
        "backout_plan": "No backout needed; the added files can be dropped later if empty.",
        "test_plan": "Posting job completes and no further ORA-01653 errors appear in the alert log.",
        "risk": "3",
        "impact": "1",
        "category": "Database",
        "group": "Database",
        "ci_kind": "linux_db_server",
    },
    {
        "type": "emergency",
        "short_description": "Emergency: apply vendor hotfix for critical PAN-OS vulnerability on {ci_name}",
        "description": (
            "Apply the vendor hotfix for a critical, actively exploited vulnerability in the "
            "GlobalProtect portal on {ci_name}."
        ),
        "justification": (
            "Vendor advisory rated critical with active exploitation; the device is internet-facing."
        ),
        "implementation_plan": (
            "1. Download the hotfix.\n"
            "2. Upgrade the passive peer and fail over.\n"
            "3. Upgrade the remaining peer."
        ),
        "backout_plan": (
            "Downgrade to the previous version and apply the vendor's threat prevention signature as "
            "mitigation."
        ),
        "test_plan": (
            "Confirm the new version, HA status and successful GlobalProtect logins from test users."
        ),
        "risk": "2",
        "impact": "1",
        "category": "Network",
        "group": "Network",
        "ci_kind": "vpn_gateway",
    },
    {
        "type": "emergency",
        "short_description": "Emergency: replace expired TLS certificate for {app_name}",
        "description": (
            "Install a new certificate on {ci_name}; the current one expired and users of {app_name} get "
            "errors."
        ),
        "justification": "Application unavailable to all users and integrations are failing.",
        "implementation_plan": (
            "1. Issue a certificate from the company CA with the existing SANs.\n"
            "2. Install it on {ci_name} and the load balancer.\n"
            "3. Reload services."
        ),
        "backout_plan": "None practical; the previous certificate has expired.",
        "test_plan": "Browsers load {app_name} without warnings and integration health checks pass.",
        "risk": "3",
        "impact": "1",
        "category": "Software",
        "group": "Applications",
        "ci_kind": "linux_app_server",
    },
    {
        "type": "emergency",
        "short_description": "Emergency: fail over {ci_name} to the secondary replica",
        "description": (
            "Manually fail over the availability group from {ci_name}, whose storage is reporting errors."
        ),
        "justification": "Storage errors on the primary risk data corruption for the order entry database.",
        "implementation_plan": (
            "1. Confirm the secondary is synchronised.\n"
            "2. Perform a planned manual failover.\n"
            "3. Suspend data movement to {ci_name}."
        ),
        "backout_plan": "Fail back once the storage on {ci_name} has been repaired and validated.",
        "test_plan": "Applications reconnect through the listener and order entry smoke test passes.",
        "risk": "2",
        "impact": "1",
        "category": "Database",
        "group": "Database",
        "ci_kind": "windows_db_server",
    },
    {
        "type": "emergency",
        "short_description": "Emergency: roll back last night's {app_name} release",
        "description": (
            "Roll back the release deployed to {ci_name} last night; users cannot log in since the "
            "deployment."
        ),
        "justification": "Major incident in progress; fix-forward is not available today.",
        "implementation_plan": (
            "1. Stop application services.\n"
            "2. Redeploy the previous release artefact.\n"
            "3. Run the database rollback script.\n"
            "4. Start services."
        ),
        "backout_plan": "Redeploy the new release if the rollback fails.",
        "test_plan": "Test users from each region log in and complete a transaction.",
        "risk": "2",
        "impact": "1",
        "category": "Software",
        "group": "Applications",
        "ci_kind": "linux_app_server",
    },
    {
        "type": "emergency",
        "short_description": "Emergency: block phishing domain at mail and web gateways",
        "description": (
            "Block a look-alike domain used in an active credential phishing campaign at the mail "
            "gateway and web proxy, and purge delivered messages."
        ),
        "justification": "Several users have already entered credentials; the campaign is ongoing.",
        "implementation_plan": (
            "1. Add the domain to the tenant block list.\n"
            "2. Add the URL to the proxy block category.\n"
            "3. Run a search and purge for delivered messages."
        ),
        "backout_plan": "Remove the block entries if the domain proves legitimate.",
        "test_plan": "Test message from the domain is rejected and the URL shows the block page.",
        "risk": "4",
        "impact": "2",
        "category": "Network",
        "group": "Email",
        "ci_kind": None,
    },
    {
        "type": "emergency",
        "short_description": "Emergency: restart hung application services on {ci_name}",
        "description": "Restart the hung application services on {ci_name}; {app_name} is not responding.",
        "justification": (
            "Outage affecting all users; thread dumps have been captured for root cause analysis."
        ),
        "implementation_plan": (
            "1. Capture thread and heap dumps.\n"
            "2. Remove the node from the load balancer.\n"
            "3. Restart the services.\n"
            "4. Add the node back."
        ),
        "backout_plan": "Not applicable; the service is already down.",
        "test_plan": "Health check returns HTTP 200 and users confirm {app_name} responds.",
        "risk": "3",
        "impact": "1",
        "category": "Software",
        "group": "Applications",
        "ci_kind": "linux_app_server",
    },
)

# ---------------------------------------------------------------------------
# Problems
# ---------------------------------------------------------------------------

PROBLEM_TEMPLATES: Final[tuple[ProblemTemplateSpec, ...]] = (
    {
        "short_description": "Recurring Outlook password prompts after password changes",
        "description": (
            "Around 40 incidents a month report Outlook asking for a password repeatedly in the days "
            "after a password change."
        ),
        "category": "software",
        "subcategory": "email",
        "group": "Email",
        "impact": "2",
        "urgency": "3",
        "cause_notes": (
            "Stale MicrosoftOffice16_Data credentials in Windows Credential Manager are offered before "
            "the modern authentication token, so Exchange Online rejects them."
        ),
        "fix_notes": (
            "Deployed a sign-in script that clears stale Office credentials after a password change."
        ),
        "workaround": "Remove MicrosoftOffice16 entries from Credential Manager and restart Outlook.",
    },
    {
        "short_description": "Intermittent Wi-Fi drops on the third floor",
        "description": (
            "Users on the third floor report Wi-Fi disconnects of 5-20 seconds several times an hour."
        ),
        "category": "network",
        "subcategory": "wireless",
        "group": "Network",
        "impact": "2",
        "urgency": "2",
        "cause_notes": (
            "Access point firmware bug causes radios to reset when more than 40 clients associate. "
            "Two access points also share the same 5 GHz channel."
        ),
        "fix_notes": (
            "Upgraded access point firmware and corrected the channel plan under an approved change."
        ),
        "workaround": "Use a desk cable or move to the second floor quiet area for important calls.",
    },
    {
        "short_description": "VPN sessions disconnect every 60 minutes",
        "description": (
            "Remote users are disconnected from GlobalProtect almost exactly one hour after connecting."
        ),
        "category": "network",
        "subcategory": "vpn",
        "group": "Network",
        "impact": "2",
        "urgency": "2",
        "cause_notes": (
            "Gateway configuration set the inactivity logout to 60 minutes instead of the intended login "
            "lifetime."
        ),
        "fix_notes": "Corrected the gateway timer settings; no hourly drops observed for two weeks.",
        "workaround": "Reconnect GlobalProtect; the session resumes without a new MFA prompt.",
    },
    {
        "short_description": "External monitors not detected after sleep on USB-C docks",
        "description": "Laptops on WD19 and WD22 docks fail to wake external monitors after sleep.",
        "category": "hardware",
        "subcategory": "monitor",
        "group": "Hardware",
        "impact": "2",
        "urgency": "3",
        "cause_notes": (
            "Known defect in the dock firmware's DisplayPort MST handling after the host resumes from sleep."
        ),
        "fix_notes": "Vendor firmware update deployed to all docks through Company Portal.",
        "workaround": "Unplug the dock's USB-C cable from the laptop and reconnect it.",
    },
    {
        "short_description": "Month-end GL reports slow after large data loads",
        "description": "General ledger reports run 10-20 times slower in the first days of every month.",
        "category": "database",
        "subcategory": "oracle",
        "group": "Database",
        "impact": "2",
        "urgency": "2",
        "cause_notes": (
            "Optimizer statistics on the journal line tables are stale after the month-end load, so "
            "the optimizer picks full table scans."
        ),
        "fix_notes": (
            "Added a statistics gathering step at the end of the load job and locked a tested SQL plan "
            "baseline."
        ),
        "workaround": "DBA gathers statistics manually on request.",
    },
    {
        "short_description": "Nightly DB2 warehouse load fails with SQL30081N",
        "description": (
            "The nightly load fails two or three times a week with a communication error, code 10054."
        ),
        "category": "database",
        "subcategory": "db2",
        "group": "Database",
        "impact": "2",
        "urgency": "2",
        "cause_notes": (
            "The data centre firewall drops idle TCP sessions after 60 minutes; long-running load "
            "steps leave the control connection idle longer than that."
        ),
        "fix_notes": "Enabled TCP keepalive of 10 minutes on the DB2 client and server.",
        "workaround": "Restart the load job from the failed step in the morning.",
    },
    {
        "short_description": "SAP GUI logon failures after landscape changes",
        "description": "After SAP server moves, some users keep connecting to retired application servers.",
        "category": "software",
        "subcategory": "internal application",
        "group": "Applications",
        "impact": "2",
        "urgency": "2",
        "cause_notes": (
            "Users with locally edited logon entries do not pick up the central SAPUILandscape.xml file."
        ),
        "fix_notes": (
            "Removed local landscape files by script and enforced the central landscape through policy."
        ),
        "workaround": "Reinstall the SAP GUI Configuration package from Company Portal.",
    },
    {
        "short_description": "Repeated account lockouts caused by old mobile devices",
        "description": "A group of users is locked out several times a day after each password change.",
        "category": "inquiry",
        "subcategory": "internal application",
        "group": "Identity and Access",
        "impact": "3",
        "urgency": "2",
        "cause_notes": "Legacy mail apps on old phones and tablets keep retrying the previous password.",
        "fix_notes": (
            "Blocked legacy authentication protocols tenant-wide so these devices no longer submit passwords."
        ),
        "workaround": "Find the device in the sign-in logs and remove the account from it.",
    },
    {
        "short_description": "BitLocker recovery prompts after BIOS updates",
        "description": "Laptops ask for the BitLocker recovery key after the automated BIOS update.",
        "category": "software",
        "subcategory": "os",
        "group": "Service Desk",
        "impact": "2",
        "urgency": "2",
        "cause_notes": (
            "The BIOS update package did not suspend BitLocker before flashing, changing PCR measurements."
        ),
        "fix_notes": "Repackaged the BIOS update to suspend BitLocker for one reboot before flashing.",
        "workaround": (
            "User enters the recovery key from the self-service portal or the Service Desk reads it out."
        ),
    },
    {
        "short_description": "Deadlocks in order entry since the spring release",
        "description": (
            "Order entry users receive deadlock victim errors several times a day since the last release."
        ),
        "category": "database",
        "subcategory": "ms sql server",
        "group": "Database",
        "impact": "2",
        "urgency": "2",
        "cause_notes": (
            "The new release updates OrderLines before Orders, the reverse of the existing stored "
            "procedure, and a missing index on OrderLines.OrderId widens the lock range."
        ),
        "fix_notes": "Added the missing index and aligned update order in the release hotfix.",
        "workaround": "Retry the save once; the second attempt usually succeeds.",
    },
    {
        "short_description": "Tableau extract refreshes fail after password rotation",
        "description": "Dashboards go stale every 90 days when embedded database passwords expire.",
        "category": "software",
        "subcategory": "internal application",
        "group": "Applications",
        "impact": "3",
        "urgency": "3",
        "cause_notes": "Data sources embed personal database accounts whose passwords rotate every 90 days.",
        "fix_notes": (
            "Moved published data sources to a vault-managed service account with automated rotation."
        ),
        "workaround": "Data source owner updates the embedded credentials and reruns the refresh.",
    },
    {
        "short_description": "DHCP scope exhaustion on the fourth floor",
        "description": (
            "New devices on the fourth floor intermittently receive 169.254 addresses in the afternoon."
        ),
        "category": "network",
        "subcategory": "dhcp",
        "group": "Network",
        "impact": "2",
        "urgency": "2",
        "cause_notes": "A /24 scope with eight-day leases is exhausted since desk density increased.",
        "fix_notes": "Extended the scope to a /23 and reduced the lease time to one day.",
        "workaround": "Network team clears expired leases on request.",
    },
    {
        "short_description": "Teams audio drops on one laptop model",
        "description": "Users of one laptop model report robotic audio and dropped Teams calls.",
        "category": "software",
        "subcategory": "internal application",
        "group": "Service Desk",
        "impact": "2",
        "urgency": "3",
        "cause_notes": (
            "Audio driver version shipped with the image has a known buffer issue with echo cancellation."
        ),
        "fix_notes": "Vendor audio driver update deployed to the affected model.",
        "workaround": "Use a USB headset, which bypasses the built-in audio driver.",
    },
    {
        "short_description": "SSD failures in one laptop purchase batch",
        "description": "Higher than expected SMART failures on laptops delivered in the same quarter.",
        "category": "hardware",
        "subcategory": "disk",
        "group": "Hardware",
        "impact": "2",
        "urgency": "2",
        "cause_notes": (
            "SSD firmware defect causes the drive to enter read-only mode after a power loss during writes."
        ),
        "fix_notes": "Vendor SSD firmware deployed to the batch; failed drives replaced under warranty.",
        "workaround": "Keep files in OneDrive; replace the drive and reimage when the error appears.",
    },
    {
        "short_description": "Delayed delivery of email to some external domains",
        "description": "Email to several partner domains is delayed by up to two hours.",
        "category": "software",
        "subcategory": "email",
        "group": "Email",
        "impact": "2",
        "urgency": "2",
        "cause_notes": (
            "The SPF record exceeds the ten DNS lookup limit, so strict receivers defer messages as "
            "a temporary SPF error."
        ),
        "fix_notes": "Flattened the SPF record and removed retired sending services.",
        "workaround": "Send time-critical messages as links from SharePoint, or call the recipient.",
    },
    {
        "short_description": "Internal name resolution fails after domain controller patching",
        "description": (
            "Internal DNS names fail to resolve for 10-15 minutes after monthly domain controller reboots."
        ),
        "category": "network",
        "subcategory": "dns",
        "group": "Network",
        "impact": "1",
        "urgency": "2",
        "cause_notes": "DHCP hands out two DNS servers that are patched in the same reboot batch.",
        "fix_notes": "Split domain controller reboots into batches so each site always has one DNS server.",
        "workaround": "Wait for the domain controllers to finish rebooting, then flush the DNS cache.",
    },
    {
        "short_description": "Okta Verify push notifications delayed on some Android phones",
        "description": "Users with certain Android phones receive MFA pushes minutes late or not at all.",
        "category": "inquiry",
        "subcategory": "internal application",
        "group": "Identity and Access",
        "impact": "3",
        "urgency": "3",
        "cause_notes": "Manufacturer battery optimisation stops Okta Verify background activity.",
        "fix_notes": (
            "Published device-specific guidance and enabled code entry as a fallback on the sign-in page."
        ),
        "workaround": "Open Okta Verify and enter the six-digit code instead of waiting for the push.",
    },
    {
        "short_description": "Outages caused by expired TLS certificates",
        "description": (
            "Three outages this year were caused by certificates expiring on internal applications."
        ),
        "category": "software",
        "subcategory": "internal application",
        "group": "Applications",
        "impact": "1",
        "urgency": "2",
        "cause_notes": (
            "No central inventory of certificates; renewal relied on calendar reminders of individual "
            "engineers."
        ),
        "fix_notes": (
            "Certificate discovery scan and 30-day expiry alerts added to monitoring; renewals raised as "
            "standard changes."
        ),
        "workaround": "Issue an emergency certificate from the company CA.",
    },
    {
        "short_description": "Outlook crashes at start-up caused by CRM add-in",
        "description": (
            "Outlook crashes during profile load for users with the CRM add-in after the latest Office "
            "update."
        ),
        "category": "software",
        "subcategory": "email",
        "group": "Email",
        "impact": "2",
        "urgency": "2",
        "cause_notes": "The CRM COM add-in version is incompatible with the current Office build.",
        "fix_notes": "Deployed the vendor's updated add-in version through Company Portal.",
        "workaround": "Start Outlook in safe mode and disable the CRM add-in.",
    },
)

# ---------------------------------------------------------------------------
# Journal text: work notes (internal), comments (customer-visible), caller replies, close notes
# ---------------------------------------------------------------------------

WORK_NOTE_TEMPLATES: Final[tuple[str, ...]] = (
    "Called {caller_first_name}, no answer. Left a voicemail asking for a call back quoting {number}.",
    "Remote session established with {caller_first_name}. Reproduced the issue on the first attempt.",
    "Verified caller identity with employee ID and manager name before making any account changes.",
    "Reassigning to {group}: outside Service Desk scope. Steps tried so far are listed above.",
    "Escalated to {group} under the major incident process. Bridge call opened.",
    (
        "Cleared cached credentials in Credential Manager and rebuilt the Outlook profile. Awaiting "
        "confirmation."
    ),
    "Sign-in logs show repeated failed attempts from a legacy mail client since 08:10. Likely an old phone.",
    "Matches a known problem; linked {number} to the problem record for tracking.",
    "Vendor case opened and reference added to the notes. Setting to On Hold - Awaiting Vendor.",
    "Checked monitoring: no alerts on the affected CI in the last 24 hours.",
    "Hardware diagnostics failed on memory module B. Replacement part ordered.",
    "Asset is in warranty. Depot swap booked; loaner prepared for {caller_first_name}.",
    "Loaner laptop issued. Confirmed OneDrive has synced Desktop and Documents.",
    "KB article matches the symptoms. Sent the steps to {caller_first_name} and asked them to try.",
    "Approval received from the manager. Group membership added; replication can take 15 minutes.",
    "Several users affected, not just the caller. Raised impact to 2 and informed {group}.",
    "Permanent fix needs a change. Change request raised and linked to {number}.",
    "Fix applied. Waiting for {caller_first_name} to test; will follow up tomorrow morning.",
    "Firewall traffic log shows the caller's subnet hitting the default deny rule. Passing to {group}.",
    "Password reset completed after identity check; temporary password given by phone only.",
    "Collected event logs and the GlobalProtect log bundle from the device; attached to {number}.",
    (
        "Blocking session found on the database, running since 06:00. Checking with the job owner before "
        "killing it."
    ),
    "Third contact attempt with no response. Will resolve in 3 business days if no reply, per policy.",
    "Workaround applied; root cause still unknown. Suggest a problem record if this recurs.",
    "{group} confirmed the fix was deployed at 14:30. Asked the caller to verify.",
    "Intune shows the device last checked in 19 days ago and is non-compliant on OS version.",
    "SLA at risk. Pinged the {group} queue manager to get an owner assigned.",
    "Mailbox at 49.7 GB. Enabled auto-expanding archive and started the Managed Folder Assistant.",
    "Duplicate of an incident already raised for the same outage; will link and resolve {number}.",
    "Checked with {group}: no planned maintenance scheduled for this service today.",
)

#: Comments the service desk writes to the caller (customer-visible).
COMMENT_TEMPLATES: Final[tuple[str, ...]] = (
    "Hi {caller_first_name}, thanks for contacting the Service Desk. Your incident {number} has been logged.",
    "Hi {caller_first_name}, I've passed this to the {group} team, who handle this type of issue.",
    "Could you please send a screenshot of the error message, including the time it appeared?",
    "We tried to call you but couldn't reach you. Please reply here or call us quoting {number}.",
    "Please restart your laptop and let us know whether the problem still occurs.",
    "We've applied a fix on our side. Could you please try again and confirm whether it works now?",
    "Thanks {caller_first_name}. We're still investigating and will update you by the end of the day.",
    "This is part of a wider issue that {group} is already working on. We'll update you when it's fixed.",
    "Service has been restored. Please let us know if you still see any problems.",
    "We're waiting for a response from the vendor and have put {number} on hold until we hear back.",
    "Your access request has been approved. Please sign out and back in for it to take effect.",
    "Your replacement part has been ordered and should arrive in 2-3 business days.",
    "A loaner laptop is ready for you to collect from the IT bar.",
    "Can you confirm which office and floor you're on, and a phone number we can reach you on?",
    "I've sent you a knowledge article that walks through the fix. Let us know if the steps don't work.",
    "We need to connect to your laptop remotely. Please accept the remote session prompt when it appears.",
    "Thanks for confirming, {caller_first_name}. I'll go ahead and resolve {number}.",
    "We haven't heard back from you. If we don't get a reply in 3 business days, {number} will be resolved.",
    "Your password has been reset. You'll be asked to choose a new one when you next sign in.",
    "The fix needs a change that is scheduled for this weekend. We'll keep {number} open until then.",
    "Are colleagues around you seeing the same problem, or is it only affecting you?",
    "For security reasons we can't reset MFA by email. Please call the Service Desk so we can verify you.",
    "I've raised the priority with {group} because this is affecting your whole team.",
    "Your incident {number} has been resolved. If the problem comes back, reply within 7 days to reopen it.",
    "Thanks {caller_first_name}, that's helpful. We'll look into it and come back to you.",
)

#: Comments the caller writes on their own incident, in the first person. The caller does not
#: address themselves, so these never use ``{caller_first_name}``.
CALLER_REPLY_TEMPLATES: Final[tuple[str, ...]] = (
    "Tried the steps you sent but I still get the same error.",
    "It happened to me again this morning at about 9:15, same message as before.",
    "Yes, that fixed it for me. Thank you for the quick help!",
    "I'm out of the office until Monday. Can we pick this up then?",
    "Is there any update on this? It's still stopping me from working.",
    "I've attached a screenshot of the error. It appeared at 10:42 when I opened the file.",
    "I restarted my laptop as you suggested but the problem is still there.",
    "Sorry I missed your call. I'm free any time after 2pm today.",
    "A couple of people on my team are seeing the same thing, so it's not just me.",
    "Thanks, I'll try that now and let you know how it goes.",
    "That worked for me for a while, but the problem came back after lunch.",
    "I'm at my desk now, so go ahead with the remote session whenever you're ready.",
    "This is getting urgent for me: I have a client presentation tomorrow morning.",
    "I haven't installed or updated anything recently. It just started happening yesterday.",
    "My manager approved this by email yesterday, if that helps.",
    "It only seems to happen when I'm working from home on the VPN.",
    "Everything is working normally for me again. Happy for you to close {number}.",
    "I'm on the third floor near the kitchen. My mobile is the best way to reach me today.",
)

CLOSE_NOTES_TEMPLATES: Final[tuple[str, ...]] = (
    (
        "Cleared stale credentials and re-signed in to Outlook. {caller_first_name} confirmed the prompts "
        "have stopped."
    ),
    "Reset password after identity verification. User signed in and updated the mail app on their phone.",
    "Unlocked the account and removed the old mobile device that was causing repeated lockouts.",
    "Updated dock firmware and display driver. Both monitors detected and stable after reconnecting.",
    "{group} restarted the affected services; service restored. Root cause is tracked in a problem record.",
    "Access granted through the approved request. {caller_first_name} confirmed access works.",
    "Provided the knowledge article steps; user resolved the issue themselves.",
    "Replaced the failed SSD under warranty and reimaged the laptop. Files restored from OneDrive.",
    "Reinstalled GlobalProtect from Company Portal. VPN connects successfully.",
    "Released the message from quarantine after security review and added the sender to the allow list.",
    "Duplicate of an existing incident for the same outage. Caller informed; {number} linked to the parent.",
    (
        "No response from the caller after three contact attempts. Resolved per policy; can be reopened "
        "within 7 days."
    ),
    "Flushed the DNS cache and corrected the stale DNS record. Site now resolves correctly.",
    "Tablespace extended and the failed posting job restarted. Posting completed successfully.",
    "Resolved by change: fix implemented under the approved change and verified by {group}.",
    "Workaround provided: user will use Outlook on the web until the permanent fix is deployed.",
    "User error: caller was using the wrong VPN portal address. Corrected and confirmed working.",
    "Battery replaced under warranty. Battery report now shows full design capacity.",
    "{group} rebooted the access point; Wi-Fi on the floor has been stable for an hour.",
    "Device enrolled and compliant in Intune. Outlook and Teams working on the phone.",
)
