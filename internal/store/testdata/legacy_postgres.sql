--
-- PostgreSQL database dump
--

-- Dumped from database version 15.18 (Debian 15.18-0+deb12u1)
-- Dumped by pg_dump version 15.18 (Debian 15.18-0+deb12u1)

--
-- Name: legacy_fixture; Type: SCHEMA; Schema: -; Owner: -
--

--
-- Name: apps_accounts; Type: TABLE; Schema: -; Owner: -
--

CREATE TABLE apps_accounts (
    id text NOT NULL,
    app_id text NOT NULL,
    auth text NOT NULL,
    name text NOT NULL,
    sealed text NOT NULL,
    created_at bigint NOT NULL,
    updated_at bigint NOT NULL
);

--
-- Name: apps_actions; Type: TABLE; Schema: -; Owner: -
--

CREATE TABLE apps_actions (
    id text NOT NULL,
    app_id text NOT NULL,
    account_id text NOT NULL,
    action text NOT NULL,
    args text NOT NULL,
    entity text NOT NULL,
    status text NOT NULL,
    answer_status bigint NOT NULL,
    answer text NOT NULL,
    error text NOT NULL,
    ran_by text NOT NULL,
    started_at bigint NOT NULL,
    duration_ms bigint NOT NULL
);

--
-- Name: apps_apps; Type: TABLE; Schema: -; Owner: -
--

CREATE TABLE apps_apps (
    id text NOT NULL,
    url text NOT NULL,
    name text NOT NULL,
    space text NOT NULL,
    descriptor text NOT NULL,
    created_at bigint NOT NULL
);

--
-- Name: apps_events; Type: TABLE; Schema: -; Owner: -
--

CREATE TABLE apps_events (
    id text NOT NULL,
    sync_id text NOT NULL,
    received_at bigint NOT NULL,
    params text NOT NULL,
    payload text NOT NULL,
    status text NOT NULL,
    result text NOT NULL,
    next_try bigint NOT NULL,
    sealed bigint DEFAULT 0 NOT NULL
);

--
-- Name: apps_oauth; Type: TABLE; Schema: -; Owner: -
--

CREATE TABLE apps_oauth (
    state_hash text NOT NULL,
    app_id text NOT NULL,
    auth text NOT NULL,
    callback text NOT NULL,
    sealed text NOT NULL,
    account_id text NOT NULL,
    expires_at bigint NOT NULL
);

--
-- Name: apps_runs; Type: TABLE; Schema: -; Owner: -
--

CREATE TABLE apps_runs (
    id text NOT NULL,
    sync_id text NOT NULL,
    seq bigint NOT NULL,
    trigger_kind text NOT NULL,
    status text NOT NULL,
    owner text NOT NULL,
    attempts bigint NOT NULL,
    queued_at bigint NOT NULL,
    started_at bigint NOT NULL,
    ended_at bigint NOT NULL,
    report text NOT NULL,
    error text NOT NULL,
    exchanges text NOT NULL
);

--
-- Name: apps_syncs; Type: TABLE; Schema: -; Owner: -
--

CREATE TABLE apps_syncs (
    id text NOT NULL,
    app_id text NOT NULL,
    account_id text NOT NULL,
    selection text NOT NULL,
    every_ms bigint NOT NULL,
    next_at bigint NOT NULL,
    webhook text NOT NULL,
    webhook_types text NOT NULL,
    run_id text NOT NULL,
    lease_owner text NOT NULL,
    lease_until bigint NOT NULL,
    created_at bigint NOT NULL,
    cancel_run text DEFAULT ''::text NOT NULL,
    cancel_reason text DEFAULT ''::text NOT NULL,
    space text DEFAULT ''::text NOT NULL,
    filter_sent text DEFAULT ''::text NOT NULL
);

--
-- Name: catalog_counters; Type: TABLE; Schema: -; Owner: -
--

CREATE TABLE catalog_counters (
    type_id text NOT NULL,
    next bigint NOT NULL
);

--
-- Name: catalog_state; Type: TABLE; Schema: -; Owner: -
--

CREATE TABLE catalog_state (
    id integer NOT NULL,
    version bigint NOT NULL,
    doc text NOT NULL
);

--
-- Name: graphql_assignments; Type: TABLE; Schema: -; Owner: -
--

CREATE TABLE graphql_assignments (
    entity_id text NOT NULL,
    email text NOT NULL,
    created bigint NOT NULL
);

--
-- Name: graphql_comments; Type: TABLE; Schema: -; Owner: -
--

CREATE TABLE graphql_comments (
    id text NOT NULL,
    entity_id text NOT NULL,
    author text NOT NULL,
    content text NOT NULL,
    created bigint NOT NULL
);

--
-- Name: graphql_creators; Type: TABLE; Schema: -; Owner: -
--

CREATE TABLE graphql_creators (
    entity_id text NOT NULL,
    email text NOT NULL
);

--
-- Name: graphql_files; Type: TABLE; Schema: -; Owner: -
--

CREATE TABLE graphql_files (
    id text NOT NULL,
    entity_id text NOT NULL,
    name text NOT NULL,
    content_type text NOT NULL,
    size bigint NOT NULL,
    data bytea NOT NULL,
    created bigint NOT NULL
);

--
-- Name: graphql_notifications; Type: TABLE; Schema: -; Owner: -
--

CREATE TABLE graphql_notifications (
    id text NOT NULL,
    recipient text NOT NULL,
    sender text NOT NULL,
    subject text NOT NULL,
    message text NOT NULL,
    entity_id text,
    entity_type text,
    created bigint NOT NULL
);

--
-- Name: host_documents; Type: TABLE; Schema: -; Owner: -
--

CREATE TABLE host_documents (
    secret text NOT NULL,
    content text NOT NULL,
    updated_at bigint NOT NULL
);

--
-- Name: host_reserved_ids; Type: TABLE; Schema: -; Owner: -
--

CREATE TABLE host_reserved_ids (
    scope text NOT NULL,
    key text NOT NULL,
    id text NOT NULL
);

--
-- Name: host_sessions; Type: TABLE; Schema: -; Owner: -
--

CREATE TABLE host_sessions (
    id_hash text NOT NULL,
    user_id text NOT NULL,
    created_at bigint NOT NULL,
    expires_at bigint NOT NULL
);

--
-- Name: host_tokens; Type: TABLE; Schema: -; Owner: -
--

CREATE TABLE host_tokens (
    id text NOT NULL,
    user_id text NOT NULL,
    name text NOT NULL,
    token_hash text NOT NULL,
    created_at bigint NOT NULL,
    last_used_at bigint
);

--
-- Name: host_users; Type: TABLE; Schema: -; Owner: -
--

CREATE TABLE host_users (
    id text NOT NULL,
    email text NOT NULL,
    password_hash text NOT NULL,
    created_at bigint NOT NULL
);

--
-- Name: sync_state; Type: TABLE; Schema: -; Owner: -
--

CREATE TABLE sync_state (
    key text NOT NULL COLLATE pg_catalog."C",
    doc text NOT NULL,
    updated_at bigint NOT NULL
);

--
-- Name: t_1; Type: TABLE; Schema: -; Owner: -
--

CREATE TABLE t_1 (
    id text NOT NULL COLLATE pg_catalog."C",
    public_id text COLLATE pg_catalog."C",
    created bigint NOT NULL,
    modified bigint NOT NULL,
    c_2 text COLLATE pg_catalog."C"
);

--
-- Name: t_10; Type: TABLE; Schema: -; Owner: -
--

CREATE TABLE t_10 (
    id text NOT NULL COLLATE pg_catalog."C",
    public_id text COLLATE pg_catalog."C",
    created bigint NOT NULL,
    modified bigint NOT NULL,
    c_11 text COLLATE pg_catalog."C",
    c_12 bigint,
    c_13 text COLLATE pg_catalog."C",
    c_18 text COLLATE pg_catalog."C",
    c_19 bigint,
    c_20 text COLLATE pg_catalog."C",
    c_21 text COLLATE pg_catalog."C",
    c_22 numeric,
    c_23 text COLLATE pg_catalog."C",
    c_24 bigint,
    c_25 text COLLATE pg_catalog."C",
    c_29 text COLLATE pg_catalog."C",
    c_30 text COLLATE pg_catalog."C",
    c_31 bigint,
    c_32 text COLLATE pg_catalog."C"
);

--
-- Name: t_26; Type: TABLE; Schema: -; Owner: -
--

CREATE TABLE t_26 (
    id text NOT NULL COLLATE pg_catalog."C",
    public_id text COLLATE pg_catalog."C",
    created bigint NOT NULL,
    modified bigint NOT NULL,
    c_27 text COLLATE pg_catalog."C",
    c_28 bigint
);

--
-- Name: t_3; Type: TABLE; Schema: -; Owner: -
--

CREATE TABLE t_3 (
    id text NOT NULL COLLATE pg_catalog."C",
    public_id text COLLATE pg_catalog."C",
    created bigint NOT NULL,
    modified bigint NOT NULL,
    c_4 text COLLATE pg_catalog."C",
    c_5 text COLLATE pg_catalog."C"
);

--
-- Name: t_6; Type: TABLE; Schema: -; Owner: -
--

CREATE TABLE t_6 (
    id text NOT NULL COLLATE pg_catalog."C",
    public_id text COLLATE pg_catalog."C",
    created bigint NOT NULL,
    modified bigint NOT NULL,
    c_7 text COLLATE pg_catalog."C",
    c_8 bigint,
    c_9 text COLLATE pg_catalog."C",
    c_14 bigint,
    c_15 text COLLATE pg_catalog."C",
    c_16 text COLLATE pg_catalog."C",
    c_17 text COLLATE pg_catalog."C"
);

--
-- Data for Name: apps_accounts; Type: TABLE DATA; Schema: -; Owner: -
--

INSERT INTO apps_accounts VALUES ('f00a3158-52e3-4308-8e46-86ab1db325fb', 'c1908c90-bac3-463e-a1da-41556c87e001', 'token', 'Demo tracker', 'pNz0XNl7U7z9BM21prWQh76ofLklKPUeghQIzWCq+rSCJY9HtZ6tPVH/Z21B4OnehMeSEUD/67xYsIQ=', 1795833376849, 1795833376849);

--
-- Data for Name: apps_actions; Type: TABLE DATA; Schema: -; Owner: -
--

--
-- Data for Name: apps_apps; Type: TABLE DATA; Schema: -; Owner: -
--

INSERT INTO apps_apps VALUES ('c1908c90-bac3-463e-a1da-41556c87e001', 'http://127.0.0.1:46411', 'Tracker', 'tracker', '{"id":"tracker","type":"custom","name":"Tracker","version":"1.0.0","description":"Projects and tasks of a task tracker, generated deterministically (appkit example)","website":"https://github.com/appkitgo/appkit/tree/main/examples/tracker","authentication":[{"id":"token","name":"API token","fields":[{"id":"token","name":"Token","type":"password","description":"Your tracker API token (the demo token is \"demo\")"}]}],"sources":[],"responsibleFor":{"dataSynchronization":true,"automations":false},"actions":[]}', 1795833376845);

--
-- Data for Name: apps_events; Type: TABLE DATA; Schema: -; Owner: -
--

--
-- Data for Name: apps_oauth; Type: TABLE DATA; Schema: -; Owner: -
--

--
-- Data for Name: apps_runs; Type: TABLE DATA; Schema: -; Owner: -
--

INSERT INTO apps_runs VALUES ('b5a7c76e-8858-4784-9a80-a6d379f0111c', '5959aaa1-19ff-4f3e-8d01-c6e8ffb81a1b', 1, 'schedule', 'succeeded', 'host-T_wau5gA', 1, 1795833376862, 1795833376862, 1795833376946, '{"account":"Demo tracker","operationId":"efbd5202-8c93-454a-a386-e14cbc249537","schemaChanges":["created type tracker/project","created type tracker/task","added field tracker.project/created (date-time)","added field tracker.project/description (markdown)","added field tracker.project/name (text)","added field tracker.project/url (text)","added field tracker.task/assignee (email)","added field tracker.task/created (date-time)","added field tracker.task/description (markdown)","added field tracker.task/due (date)","added field tracker.task/estimate (decimal)","added field tracker.task/name (text)","added field tracker.task/priority (int)","added field tracker.task/project (ref-one)","added field tracker.task/status (select)","added field tracker.task/tags (list)","added field tracker.task/updated (date-time)","added field tracker.task/url (text)"],"types":[{"Type":"project","Store":"tracker/project","Status":"completed","Mode":"full","Pages":1,"Items":3,"Created":3,"Updated":0,"Unchanged":0,"Removed":0,"Skipped":0,"Duplicates":0,"Problems":null},{"Type":"task","Store":"tracker/task","Status":"completed","Mode":"full","Pages":1,"Items":4,"Created":4,"Updated":0,"Unchanged":0,"Removed":0,"Skipped":0,"Duplicates":0,"Problems":null}]}', '', '[{"method":"GET","path":"/","status":200,"durationMs":0,"response":"{\"id\":\"tracker\",\"type\":\"custom\",\"name\":\"Tracker\",\"version\":\"1.0.0\",\"description\":\"Projects and tasks of a task tracker, generated deterministically (appkit example)\",\"website\":\"https://github.com/appkitgo/appkit/tree/main/examples/tracker\",\"authentication\":[{\"id\":\"token\",\"name\":\"API token\",\"fields\":[{\"id\":\"token\",\"name\":\"Token\",\"type\":\"password\",\"description\":\"Your tracker API token (the *** token is \\\"***\\\")\"}]}],\"sources\":[],\"responsibleFor\":{\"dataSynchronization\":true,\"automations\":false},\"actions\":[]}\n"},{"method":"GET","path":"/logo","status":200,"durationMs":0,"response":"\u003csvg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 64 64\" width=\"64\" height=\"64\"\u003e\u003crect width=\"64\" height=\"64\" rx=\"12\" fill=\"#2b6cb0\"/\u003e\u003cpath d=\"M16 22h32M16 34h32M16 46h20\" stroke=\"#fff\" stroke-width=\"5\" stroke-linecap=\"round\"/\u003e\u003cpath d=\"M42 44l4 4 8-10\" fill=\"none\" stroke=\"#9ae6b4\" stroke-width=\"4\" stroke-linecap=\"round\" stroke-linejoin=\"round\"/\u003e\u003c/svg\u003e"},{"method":"POST","path":"/validate","status":200,"durationMs":0,"request":"{\"fields\":{\"auth\":\"token\",\"token\":\"***\"},\"id\":\"token\"}","response":"{\"name\":\"Demo tracker\"}\n"},{"method":"POST","path":"/api/v1/synchronizer/config","status":200,"durationMs":0,"request":"{\"account\":{\"auth\":\"token\",\"token\":\"***\"}}","response":"{\"types\":[{\"id\":\"project\",\"name\":\"Projects\",\"default\":true},{\"id\":\"task\",\"name\":\"Tasks\",\"default\":true}],\"filters\":[{\"id\":\"projects\",\"title\":\"Projects\",\"type\":\"multidropdown\",\"datalist\":true,\"optional\":true},{\"id\":\"status\",\"title\":\"Status\",\"type\":\"multidropdown\",\"datalist\":true,\"optional\":true},{\"id\":\"due\",\"title\":\"Due\",\"type\":\"date\",\"optional\":true}]}\n"},{"method":"POST","path":"/api/v1/synchronizer/schema","status":200,"durationMs":0,"request":"{\"account\":{\"auth\":\"token\",\"token\":\"***\"},\"filter\":{},\"types\":[\"project\",\"task\"]}","response":"{\"project\":{\"created\":{\"id\":\"created\",\"name\":\"Created\",\"type\":\"date\",\"readonly\":true,\"order\":5},\"description\":{\"id\":\"description\",\"name\":\"Description\",\"type\":\"text\",\"subType\":\"md\",\"order\":3},\"id\":{\"id\":\"id\",\"name\":\"ID\",\"type\":\"id\",\"order\":1},\"name\":{\"id\":\"name\",\"name\":\"Name\",\"type\":\"text\",\"order\":2},\"url\":{\"id\":\"url\",\"name\":\"URL\",\"type\":\"text\",\"subType\":\"url\",\"order\":4}},\"task\":{\"__syncAction\":{\"id\":\"__syncAction\",\"name\":\"Sync action\",\"type\":\"text\",\"ignore\":true},\"assignee\":{\"id\":\"assignee\",\"name\":\"Assignee\",\"type\":\"text\",\"subType\":\"email\",\"order\":10},\"created\":{\"id\":\"created\",\"name\":\"Created\",\"type\":\"date\",\"readonly\":true,\"order\":8},\"description\":{\"id\":\"description\",\"name\":\"Description\",\"type\":\"text\",\"subType\":\"md\",\"order\":3},\"due\":{\"id\":\"due\",\"name\":\"Due\",\"type\":\"date\",\"subType\":\"day\",\"order\":7},\"estimate\":{\"id\":\"estimate\",\"name\":\"Estimate\",\"type\":\"number\",\"order\":6,\"format\":{\"type\":\"Number\",\"precision\":1,\"unit\":\"h\"}},\"id\":{\"id\":\"id\",\"name\":\"ID\",\"type\":\"id\",\"order\":1},\"name\":{\"id\":\"name\",\"name\":\"Name\",\"type\":\"text\",\"order\":2},\"priority\":{\"id\":\"priority\",\"name\":\"Priority\",\"description\":\"1 (highest) to 5\",\"type\":\"number\",\"subType\":\"integer\",\"order\":5},\"project\":{\"id\":\"project\",\"name\":\"Project\",\"type\":\"text\",\"relation\":{\"cardinality\":\"many-to-one\",\"name\":\"Project\",\"targetType\":\"project\",\"targetName\":\"Tasks\",\"targetFieldId\":\"id\"},\"order\":13},\"status\":{\"id\":\"status\",\"name\":\"Status\",\"type\":\"text\",\"subType\":\"single-select\",\"order\":4,\"options\":[\"todo\",\"doing\",\"done\"]},\"tags\":{\"id\":\"tags\",\"name\":\"Tags\",\"type\":\"array[text]\",\"subType\":\"multi-select\",\"order\":12,\"options\":[\"bug\",\"feature\",\"chore\",\"docs\",\"security\",\"performance\"]},\"updated\":{\"id\":\"updated\",\"name\":\"Updated\",\"type\":\"date\",\"readonly\":true,\"order\":9},\"url\":{\"id\":\"url\",\"name\":\"URL\",\"type\":\"text\",\"subType\":\"url\",\"order\":11}}}\n"},{"method":"POST","path":"/api/v1/synchronizer/data","status":200,"durationMs":0,"request":"{\"account\":{\"auth\":\"token\",\"token\":\"***\"},\"filter\":{},\"lastSynchronizedAt\":null,\"operationId\":\"efbd5202-8c93-454a-a386-e14cbc249537\",\"pagination\":null,\"requestedType\":\"project\",\"schema\":{\"project\":{\"created\":{\"id\":\"created\",\"name\":\"Created\",\"type\":\"date\",\"readonly\":true,\"order\":5},\"description\":{\"id\":\"description\",\"name\":\"Description\",\"type\":\"text\",\"subType\":\"md\",\"order\":3},\"id\":{\"id\":\"id\",\"name\":\"ID\",\"type\":\"id\",\"order\":1},\"name\":{\"id\":\"name\",\"name\":\"Name\",\"type\":\"text\",\"order\":2},\"url\":{\"id\":\"url\",\"name\":\"URL\",\"type\":\"text\",\"subType\":\"url\",\"order\":4}},\"task\":{\"__syncAction\":{\"id\":\"__syncAction\",\"name\":\"Sync action\",\"type\":\"text\",\"ignore\":true},\"assignee\":{\"id\":\"assignee\",\"name\":\"Assignee\",\"type\":\"text\",\"subType\":\"email\",\"order\":10},\"created\":{\"id\":\"created\",\"name\":\"Created\",\"type\":\"date\",\"readonly\":true,\"order\":8},\"description\":{\"id\":\"description\",\"name\":\"Description\",\"type\":\"text\",\"subType\":\"md\",\"order\":3},\"due\":{\"id\":\"due\",\"name\":\"Due\",\"type\":\"date\",\"subType\":\"day\",\"order\":7},\"estimate\":{\"id\":\"estimate\",\"name\":\"Estimate\",\"type\":\"number\",\"order\":6,\"format\":{\"type\":\"Number\",\"precision\":1,\"unit\":\"h\"}},\"id\":{\"id\":\"id\",\"name\":\"ID\",\"type\":\"id\",\"order\":1},\"name\":{\"id\":\"name\",\"name\":\"Name\",\"type\":\"text\",\"order\":2},\"priority\":{\"id\":\"priority\",\"name\":\"Priority\",\"description\":\"1 (highest) to 5\",\"type\":\"number\",\"subType\":\"integer\",\"order\":5},\"project\":{\"id\":\"project\",\"name\":\"Project\",\"type\":\"text\",\"relation\":{\"cardinality\":\"many-to-one\",\"name\":\"Project\",\"targetType\":\"project\",\"targetName\":\"Tasks\",\"targetFieldId\":\"id\"},\"order\":13},\"status\":{\"id\":\"status\",\"name\":\"Status\",\"type\":\"text\",\"subType\":\"single-select\",\"order\":4,\"options\":[\"todo\",\"doing\",\"done\"]},\"tags\":{\"id\":\"tags\",\"name\":\"Tags\",\"type\":\"array[text]\",\"subType\":\"multi-select\",\"order\":12,\"options\":[\"bug\",\"feature\",\"chore\",\"docs\",\"security\",\"performance\"]},\"updated\":{\"id\":\"updated\",\"name\":\"Updated\",\"type\":\"date\",\"readonly\":true,\"order\":9},\"url\":{\"id\":\"url\",\"name\":\"URL\",\"type\":\"text\",\"subType\":\"url\",\"order\":11}}},\"types\":[\"project\",\"task\"]}","response":"{\"items\":[{\"id\":\"p1\",\"name\":\"Bright Falcon 1\",\"description\":\"The **Bright Falcon 1** project.\\n\\nLead: frances@example.com\",\"url\":\"https://tracker.example.com/projects/1\",\"created\":\"2024-09-08T06:10:12.000Z\"},{\"id\":\"p2\",\"name\":\"Amber Meadow 2\",\"description\":\"The **Amber Meadow 2** project.\\n\\nLead: edsger@example.com\",\"url\":\"https://tracker.example.com/projects/2\",\"created\":\"2024-11-12T08:30:08.000Z\"},{\"id\":\"p3\",\"name\":\"Bright Summit 3\",\"description\":\"The **Bright Summit 3** project.\\n\\nLead: barbara@example.com\",\"url\":\"https://tracker.example.com/projects/3\",\"created\":\"2024-06-04T07:52:34.000Z\"}],\"pagination\":{\"hasNext\":false},\"synchronizationType\":\"full\"}\n"},{"method":"POST","path":"/api/v1/synchronizer/data","status":200,"durationMs":0,"request":"{\"account\":{\"auth\":\"token\",\"token\":\"***\"},\"filter\":{},\"lastSynchronizedAt\":null,\"operationId\":\"efbd5202-8c93-454a-a386-e14cbc249537\",\"pagination\":null,\"requestedType\":\"task\",\"schema\":{\"project\":{\"created\":{\"id\":\"created\",\"name\":\"Created\",\"type\":\"date\",\"readonly\":true,\"order\":5},\"description\":{\"id\":\"description\",\"name\":\"Description\",\"type\":\"text\",\"subType\":\"md\",\"order\":3},\"id\":{\"id\":\"id\",\"name\":\"ID\",\"type\":\"id\",\"order\":1},\"name\":{\"id\":\"name\",\"name\":\"Name\",\"type\":\"text\",\"order\":2},\"url\":{\"id\":\"url\",\"name\":\"URL\",\"type\":\"text\",\"subType\":\"url\",\"order\":4}},\"task\":{\"__syncAction\":{\"id\":\"__syncAction\",\"name\":\"Sync action\",\"type\":\"text\",\"ignore\":true},\"assignee\":{\"id\":\"assignee\",\"name\":\"Assignee\",\"type\":\"text\",\"subType\":\"email\",\"order\":10},\"created\":{\"id\":\"created\",\"name\":\"Created\",\"type\":\"date\",\"readonly\":true,\"order\":8},\"description\":{\"id\":\"description\",\"name\":\"Description\",\"type\":\"text\",\"subType\":\"md\",\"order\":3},\"due\":{\"id\":\"due\",\"name\":\"Due\",\"type\":\"date\",\"subType\":\"day\",\"order\":7},\"estimate\":{\"id\":\"estimate\",\"name\":\"Estimate\",\"type\":\"number\",\"order\":6,\"format\":{\"type\":\"Number\",\"precision\":1,\"unit\":\"h\"}},\"id\":{\"id\":\"id\",\"name\":\"ID\",\"type\":\"id\",\"order\":1},\"name\":{\"id\":\"name\",\"name\":\"Name\",\"type\":\"text\",\"order\":2},\"priority\":{\"id\":\"priority\",\"name\":\"Priority\",\"description\":\"1 (highest) to 5\",\"type\":\"number\",\"subType\":\"integer\",\"order\":5},\"project\":{\"id\":\"project\",\"name\":\"Project\",\"type\":\"text\",\"relation\":{\"cardinality\":\"many-to-one\",\"name\":\"Project\",\"targetType\":\"project\",\"targetName\":\"Tasks\",\"targetFieldId\":\"id\"},\"order\":13},\"status\":{\"id\":\"status\",\"name\":\"Status\",\"type\":\"text\",\"subType\":\"single-select\",\"order\":4,\"options\":[\"todo\",\"doing\",\"done\"]},\"tags\":{\"id\":\"tags\",\"name\":\"Tags\",\"type\":\"array[text]\",\"subType\":\"multi-select\",\"order\":12,\"options\":[\"bug\",\"feature\",\"chore\",\"docs\",\"security\",\"performance\"]},\"updated\":{\"id\":\"updated\",\"name\":\"Updated\",\"type\":\"date\",\"readonly\":true,\"order\":9},\"url\":{\"id\":\"url\",\"name\":\"URL\",\"type\":\"text\",\"subType\":\"url\",\"order\":11}}},\"types\":[\"project\",\"task\"]}","response":"{\"items\":[{\"id\":\"t1\",\"name\":\"Document login page\",\"description\":\"**Document login page** in project p1.\\n\\n- estimate: 9.5 h\\n- owner: ada@example.com\\n\",\"status\":\"doing\",\"priority\":2,\"estimate\":9.5,\"due\":\"2025-12-03\",\"created\":\"2025-08-20T08:05:44.000Z\",\"updated\":\"2026-10-09T18:36:41.000Z\",\"assignee\":\"ada@example.com\",\"url\":\"https://tracker.example.com/tasks/1\",\"tags\":[\"docs\",\"security\"],\"project\":\"p1\"},{\"id\":\"t2\",\"name\":\"Refactor login page\",\"description\":\"**Refactor login page** in project p2.\\n\\n- estimate: 12.0 h\\n- owner: alan@example.com\\n\",\"status\":\"todo\",\"priority\":2,\"estimate\":12,\"due\":\"2026-04-19\",\"created\":\"2025-07-30T14:05:29.000Z\",\"updated\":\"2026-11-16T11:45:23.000Z\",\"assignee\":\"alan@example.com\",\"url\":\"https://tracker.example.com/tasks/2\",\"tags\":[\"feature\",\"docs\"],\"project\":\"p2\"},{\"id\":\"t3\",\"name\":\"Design search index\",\"description\":\"**Design search index** in project p2.\\n\\n- estimate: 7.5 h\\n- owner: margaret@example.com\\n\",\"status\":\"doing\",\"priority\":3,\"estimate\":7.5,\"due\":\"2026-01-25\",\"created\":\"2025-07-14T22:10:35.000Z\",\"updated\":\"2026-10-06T00:16:34.000Z\",\"assignee\":\"margaret@example.com\",\"url\":\"https://tracker.example.com/tasks/3\",\"tags\":[\"chore\",\"docs\"],\"project\":\"p2\"},{\"id\":\"t4\",\"name\":\"Refactor billing export\",\"description\":\"**Refactor billing export** in project p1.\\n\\n- estimate: 0.5 h\\n- owner: grace@example.com\\n\",\"status\":\"done\",\"priority\":1,\"estimate\":0.5,\"due\":\"2026-06-22\",\"created\":\"2025-08-16T08:41:37.000Z\",\"updated\":\"2026-10-14T14:41:33.000Z\",\"assignee\":\"grace@example.com\",\"url\":\"https://tracker.example.com/tasks/4\",\"tags\":[\"security\"],\"project\":\"p1\"}],\"pagination\":{\"hasNext\":false},\"synchronizationType\":\"full\"}\n"}]');

--
-- Data for Name: apps_syncs; Type: TABLE DATA; Schema: -; Owner: -
--

INSERT INTO apps_syncs VALUES ('5959aaa1-19ff-4f3e-8d01-c6e8ffb81a1b', 'c1908c90-bac3-463e-a1da-41556c87e001', 'f00a3158-52e3-4308-8e46-86ab1db325fb', '{"types":["project","task"],"filter":null}', 0, 0, '', '', '', '', 0, 1795833376851, '', '', 'tracker', '{}');

--
-- Data for Name: catalog_counters; Type: TABLE DATA; Schema: -; Owner: -
--

INSERT INTO catalog_counters VALUES ('451aadeb-d031-4061-9409-b5acd312e9e6', 3);
INSERT INTO catalog_counters VALUES ('7471ee38-fb66-49ef-8016-70d5f93b21f7', 3);
INSERT INTO catalog_counters VALUES ('643a01ce-fc5a-4650-a499-1578bd96e5ef', 4);
INSERT INTO catalog_counters VALUES ('9cca3d41-1104-4df5-b780-4f6f80e92f43', 8);
INSERT INTO catalog_counters VALUES ('899491bb-a9b7-4c10-a110-b1f118d95cf7', 1);

--
-- Data for Name: catalog_state; Type: TABLE DATA; Schema: -; Owner: -
--

INSERT INTO catalog_state VALUES (1, 3, '{"version":3,"schema_id":"cecaa90b-e3cf-4133-b18d-e3effa2ebf7d","next_id":32,"types":[{"id":"9cca3d41-1104-4df5-b780-4f6f80e92f43","name":"Collaboration~Documents/Document","kind":"builtin","table":"t_1","meta":{},"fields":[{"id":"3043c17f-6944-4b88-92a1-57d2c336447c","name":"platform/id","meta":{"platform/id?":true,"platform/readonly?":true,"platform/secured?":false},"role":"id","prim":"platform/uuid","holder_id":"9cca3d41-1104-4df5-b780-4f6f80e92f43"},{"id":"dd0534ed-57fd-492c-a7dc-5d8c941c8b43","name":"platform/public-id","meta":{"platform/public-id?":true,"platform/readonly?":true,"platform/secured?":false},"role":"public-id","prim":"platform/text","holder_id":"9cca3d41-1104-4df5-b780-4f6f80e92f43"},{"id":"cc980356-01e7-427f-8fb7-f32795412715","name":"Collaboration~Documents/secret","meta":{"platform/readonly?":true},"role":"primitive","prim":"platform/uuid","col":"c_2","holder_id":"9cca3d41-1104-4df5-b780-4f6f80e92f43"}]},{"id":"899491bb-a9b7-4c10-a110-b1f118d95cf7","name":"notes/note","kind":"domain","table":"t_3","meta":{"ui/label":"Notes"},"fields":[{"id":"1618581a-fd2d-4568-aff3-d7267e04fa8f","name":"platform/id","meta":{"platform/id?":true,"platform/readonly?":true,"platform/secured?":false},"role":"id","prim":"platform/uuid","holder_id":"899491bb-a9b7-4c10-a110-b1f118d95cf7"},{"id":"c2a4b6f8-7de3-46fa-aded-4af6bf8eea77","name":"platform/public-id","meta":{"platform/public-id?":true,"platform/readonly?":true,"platform/secured?":false},"role":"public-id","prim":"platform/text","holder_id":"899491bb-a9b7-4c10-a110-b1f118d95cf7"},{"id":"7526d7c1-44d7-4483-92bb-ab5839689059","name":"platform/creation-date","meta":{"platform/creation-date?":true,"platform/default-value":"$now","platform/readonly?":true,"platform/secured?":false},"role":"creation-date","prim":"platform/date-time","holder_id":"899491bb-a9b7-4c10-a110-b1f118d95cf7"},{"id":"cd0125ea-0ec4-43ad-9b16-7bdc4aab1c6a","name":"platform/modification-date","meta":{"platform/default-value":"$now","platform/modification-date?":true,"platform/readonly?":true,"platform/required?":true,"platform/secured?":false},"role":"modification-date","prim":"platform/date-time","holder_id":"899491bb-a9b7-4c10-a110-b1f118d95cf7"},{"id":"23c0ed5f-9af3-4cea-81fc-7daf66b70262","name":"notes.note/title","meta":{"ui/label":"Title"},"role":"primitive","prim":"platform/text","col":"c_4","holder_id":"899491bb-a9b7-4c10-a110-b1f118d95cf7"},{"id":"a3305196-c63f-4275-b2ce-a88c6950b82b","name":"notes.note/body","meta":{"ui/label":"Body"},"role":"relation","col":"c_5","target_id":"9cca3d41-1104-4df5-b780-4f6f80e92f43","storage":"column","holder_id":"899491bb-a9b7-4c10-a110-b1f118d95cf7"}]},{"id":"7471ee38-fb66-49ef-8016-70d5f93b21f7","name":"tracker/project","kind":"domain","table":"t_6","meta":{"app/type-id":"project","platform/domain?":true,"ui/label":"Projects"},"fields":[{"id":"4d92a9e2-3dd6-4ad5-a746-9ab3babdea5c","name":"platform/id","meta":{"platform/id?":true,"platform/readonly?":true,"platform/secured?":false},"role":"id","prim":"platform/uuid","holder_id":"7471ee38-fb66-49ef-8016-70d5f93b21f7"},{"id":"3a3f8169-5fe5-4ba2-ba6f-d37d4536a7b2","name":"platform/public-id","meta":{"platform/public-id?":true,"platform/readonly?":true,"platform/secured?":false},"role":"public-id","prim":"platform/text","holder_id":"7471ee38-fb66-49ef-8016-70d5f93b21f7"},{"id":"ac1271a0-02d5-4d70-8db7-5334ded911dd","name":"platform/creation-date","meta":{"platform/creation-date?":true,"platform/default-value":"$now","platform/readonly?":true,"platform/secured?":false},"role":"creation-date","prim":"platform/date-time","holder_id":"7471ee38-fb66-49ef-8016-70d5f93b21f7"},{"id":"c5f90b03-a0f4-4c59-b445-00cabb898400","name":"platform/modification-date","meta":{"platform/default-value":"$now","platform/modification-date?":true,"platform/readonly?":true,"platform/required?":true,"platform/secured?":false},"role":"modification-date","prim":"platform/date-time","holder_id":"7471ee38-fb66-49ef-8016-70d5f93b21f7"},{"id":"c26f3bce-c6c8-45e5-83dd-203e59f75546","name":"tracker.project.sync/app-id","meta":{"platform/readonly?":true,"ui/hidden?":true},"role":"primitive","prim":"platform/text","col":"c_7","key":true,"holder_id":"7471ee38-fb66-49ef-8016-70d5f93b21f7"},{"id":"fb4f1509-644b-42e9-9c2e-bf03502ba2b8","name":"tracker.project.sync/run","meta":{"platform/readonly?":true,"ui/hidden?":true},"role":"primitive","prim":"platform/int","col":"c_8","holder_id":"7471ee38-fb66-49ef-8016-70d5f93b21f7"},{"id":"7d7e83cd-bdbf-4d63-87a0-aa8714c2fd72","name":"tracker.project.sync/hash","meta":{"platform/readonly?":true,"ui/hidden?":true},"role":"primitive","prim":"platform/text","col":"c_9","holder_id":"7471ee38-fb66-49ef-8016-70d5f93b21f7"},{"id":"dc961ed5-0533-4541-b6cb-7649bf3f0255","name":"tracker.project/created","meta":{"app/field-id":"created","platform/readonly?":true,"ui/label":"Created","ui/order":5},"role":"primitive","prim":"platform/date-time","col":"c_14","holder_id":"7471ee38-fb66-49ef-8016-70d5f93b21f7"},{"id":"dccbaac3-bdce-4eaa-90a0-0bc12cdad359","name":"tracker.project/description","meta":{"app/field-id":"description","ui/label":"Description","ui/order":3},"role":"relation","col":"c_15","target_id":"9cca3d41-1104-4df5-b780-4f6f80e92f43","storage":"column","holder_id":"7471ee38-fb66-49ef-8016-70d5f93b21f7"},{"id":"3cc36bcc-6626-4922-aff3-060216d6b214","name":"tracker.project/name","meta":{"app/field-id":"name","ui/label":"Name","ui/order":2,"ui/title?":true},"role":"primitive","prim":"platform/text","col":"c_16","holder_id":"7471ee38-fb66-49ef-8016-70d5f93b21f7"},{"id":"801eaa18-74e8-4ceb-babe-b51779eba7b6","name":"tracker.project/url","meta":{"app/field-id":"url","ui/label":"URL","ui/order":4},"role":"primitive","prim":"platform/text","col":"c_17","holder_id":"7471ee38-fb66-49ef-8016-70d5f93b21f7"},{"id":"5a24c810-765d-496e-a0be-b31e843d186f","name":"tracker.project/tasks","meta":{"platform/collection?":true,"platform/readonly?":true,"platform/relation":"e8fc47f2-b75f-5703-b0ec-3d19351db6b3","ui/label":"Tasks"},"role":"relation","target_id":"643a01ce-fc5a-4650-a499-1578bd96e5ef","collection":true,"relation":"e8fc47f2-b75f-5703-b0ec-3d19351db6b3","storage":"reverse","partner_id":"a9ec335d-081b-4bbf-81a3-8f64e81ae84f","holder_id":"7471ee38-fb66-49ef-8016-70d5f93b21f7"}]},{"id":"643a01ce-fc5a-4650-a499-1578bd96e5ef","name":"tracker/task","kind":"domain","table":"t_10","meta":{"app/type-id":"task","platform/domain?":true,"ui/label":"Tasks"},"fields":[{"id":"90e627a8-76c2-4ce0-8503-2122cfedfdef","name":"platform/id","meta":{"platform/id?":true,"platform/readonly?":true,"platform/secured?":false},"role":"id","prim":"platform/uuid","holder_id":"643a01ce-fc5a-4650-a499-1578bd96e5ef"},{"id":"1728c27f-ed65-4bb7-a4fb-ba070be53d39","name":"platform/public-id","meta":{"platform/public-id?":true,"platform/readonly?":true,"platform/secured?":false},"role":"public-id","prim":"platform/text","holder_id":"643a01ce-fc5a-4650-a499-1578bd96e5ef"},{"id":"32a95734-c366-447d-8887-5931760eda8e","name":"platform/creation-date","meta":{"platform/creation-date?":true,"platform/default-value":"$now","platform/readonly?":true,"platform/secured?":false},"role":"creation-date","prim":"platform/date-time","holder_id":"643a01ce-fc5a-4650-a499-1578bd96e5ef"},{"id":"031fce68-727a-4a53-9a3a-5fe919b871fa","name":"platform/modification-date","meta":{"platform/default-value":"$now","platform/modification-date?":true,"platform/readonly?":true,"platform/required?":true,"platform/secured?":false},"role":"modification-date","prim":"platform/date-time","holder_id":"643a01ce-fc5a-4650-a499-1578bd96e5ef"},{"id":"82060a3a-df8a-44a1-8578-af95277e27c8","name":"tracker.task.sync/app-id","meta":{"platform/readonly?":true,"ui/hidden?":true},"role":"primitive","prim":"platform/text","col":"c_11","key":true,"holder_id":"643a01ce-fc5a-4650-a499-1578bd96e5ef"},{"id":"ab72fdce-d5da-459e-a31d-d20918b1c111","name":"tracker.task.sync/run","meta":{"platform/readonly?":true,"ui/hidden?":true},"role":"primitive","prim":"platform/int","col":"c_12","holder_id":"643a01ce-fc5a-4650-a499-1578bd96e5ef"},{"id":"877652e0-40ff-451e-9723-443f97fcb96f","name":"tracker.task.sync/hash","meta":{"platform/readonly?":true,"ui/hidden?":true},"role":"primitive","prim":"platform/text","col":"c_13","holder_id":"643a01ce-fc5a-4650-a499-1578bd96e5ef"},{"id":"f14e2ea9-57d7-41f4-abd4-b97fbe8d37b9","name":"tracker.task/assignee","meta":{"app/field-id":"assignee","ui/label":"Assignee","ui/order":10},"role":"primitive","prim":"platform/email","col":"c_18","holder_id":"643a01ce-fc5a-4650-a499-1578bd96e5ef"},{"id":"e58c4cf4-a600-49e0-a752-7dd8721199c3","name":"tracker.task/created","meta":{"app/field-id":"created","platform/readonly?":true,"ui/label":"Created","ui/order":8},"role":"primitive","prim":"platform/date-time","col":"c_19","holder_id":"643a01ce-fc5a-4650-a499-1578bd96e5ef"},{"id":"e2421ef4-5973-4ffe-a691-5ee84a459077","name":"tracker.task/description","meta":{"app/field-id":"description","ui/label":"Description","ui/order":3},"role":"relation","col":"c_20","target_id":"9cca3d41-1104-4df5-b780-4f6f80e92f43","storage":"column","holder_id":"643a01ce-fc5a-4650-a499-1578bd96e5ef"},{"id":"a5034b87-5349-47f5-8d5d-ea5ed9b7445b","name":"tracker.task/due","meta":{"app/field-id":"due","ui/label":"Due","ui/order":7},"role":"primitive","prim":"platform/date","col":"c_21","holder_id":"643a01ce-fc5a-4650-a499-1578bd96e5ef"},{"id":"358a5f78-78e2-4a95-8aec-7b1c56b20d17","name":"tracker.task/estimate","meta":{"app/field-id":"estimate","ui/format":{"precision":1,"type":"Number","unit":"h"},"ui/label":"Estimate","ui/order":6},"role":"primitive","prim":"platform/decimal","col":"c_22","holder_id":"643a01ce-fc5a-4650-a499-1578bd96e5ef"},{"id":"704b0efa-8e37-41a1-aa2c-97c849649636","name":"tracker.task/name","meta":{"app/field-id":"name","ui/label":"Name","ui/order":2,"ui/title?":true},"role":"primitive","prim":"platform/text","col":"c_23","holder_id":"643a01ce-fc5a-4650-a499-1578bd96e5ef"},{"id":"0769d7e1-a995-41ec-a334-b33e01fa7244","name":"tracker.task/priority","meta":{"app/field-id":"priority","ui/description":"1 (highest) to 5","ui/label":"Priority","ui/order":5},"role":"primitive","prim":"platform/int","col":"c_24","holder_id":"643a01ce-fc5a-4650-a499-1578bd96e5ef"},{"id":"a9ec335d-081b-4bbf-81a3-8f64e81ae84f","name":"tracker.task/project","meta":{"app/field-id":"project","platform/collection?":false,"platform/relation":"e8fc47f2-b75f-5703-b0ec-3d19351db6b3","ui/label":"Project","ui/order":13},"role":"relation","col":"c_25","target_id":"7471ee38-fb66-49ef-8016-70d5f93b21f7","relation":"e8fc47f2-b75f-5703-b0ec-3d19351db6b3","storage":"column","holder_id":"643a01ce-fc5a-4650-a499-1578bd96e5ef"},{"id":"be0e6b4e-7507-4b81-9dc2-76d3ae17b80c","name":"tracker.task/status","meta":{"app/field-id":"status","ui/label":"Status","ui/order":4},"role":"relation","col":"c_29","target_id":"451aadeb-d031-4061-9409-b5acd312e9e6","storage":"column","holder_id":"643a01ce-fc5a-4650-a499-1578bd96e5ef"},{"id":"dca50f3c-ec3c-45c0-b1b2-873aaa288ec4","name":"tracker.task/tags","meta":{"app/field-id":"tags","ui/label":"Tags","ui/order":12},"role":"primitive","prim":"platform/json-value","col":"c_30","holder_id":"643a01ce-fc5a-4650-a499-1578bd96e5ef"},{"id":"01c276f5-8715-4508-92ff-a6f507deecaa","name":"tracker.task/updated","meta":{"app/field-id":"updated","platform/readonly?":true,"ui/label":"Updated","ui/order":9},"role":"primitive","prim":"platform/date-time","col":"c_31","holder_id":"643a01ce-fc5a-4650-a499-1578bd96e5ef"},{"id":"7ab53ffd-f488-4f40-ac67-d5909082146e","name":"tracker.task/url","meta":{"app/field-id":"url","ui/label":"URL","ui/order":11},"role":"primitive","prim":"platform/text","col":"c_32","holder_id":"643a01ce-fc5a-4650-a499-1578bd96e5ef"}]},{"id":"451aadeb-d031-4061-9409-b5acd312e9e6","name":"tracker.task/status_tracker/task","kind":"enum","table":"t_26","meta":{"platform/enum?":true},"fields":[{"id":"671233d3-e388-4315-85af-4013a9a42e43","name":"platform/id","meta":{"platform/id?":true,"platform/readonly?":true,"platform/secured?":false},"role":"id","prim":"platform/uuid","holder_id":"451aadeb-d031-4061-9409-b5acd312e9e6"},{"id":"67fc7490-6ccf-4e77-9fd4-bd3ce5d7d99d","name":"platform/public-id","meta":{"platform/public-id?":true,"platform/readonly?":true,"platform/secured?":false},"role":"public-id","prim":"platform/text","holder_id":"451aadeb-d031-4061-9409-b5acd312e9e6"},{"id":"1f1ac96d-04cc-4b12-ab70-b42d06537683","name":"enum/name","meta":{"ui/title?":true},"role":"primitive","prim":"platform/text","col":"c_27","holder_id":"451aadeb-d031-4061-9409-b5acd312e9e6"},{"id":"11963ca8-77d6-471f-a871-42054e5897df","name":"platform/rank","meta":{},"role":"primitive","prim":"platform/rank","col":"c_28","holder_id":"451aadeb-d031-4061-9409-b5acd312e9e6"}]}]}');

--
-- Data for Name: graphql_assignments; Type: TABLE DATA; Schema: -; Owner: -
--

INSERT INTO graphql_assignments VALUES ('01a22002-b0e8-7cc7-8d0a-49fe87484136', 'admin@example.com', 1795833377008);
INSERT INTO graphql_assignments VALUES ('01a22002-b0ac-7dec-a1ef-1a79dae5e684', 'admin@example.com', 1795833377018);

--
-- Data for Name: graphql_comments; Type: TABLE DATA; Schema: -; Owner: -
--

INSERT INTO graphql_comments VALUES ('01a22002-b0ef-7bfb-bd3a-b4f5953bd50d', '01a22002-b0e8-7cc7-8d0a-49fe87484136', 'admin@example.com', 'a comment on first', 1795833377007);
INSERT INTO graphql_comments VALUES ('01a22002-b0f9-7b60-aea3-496f6e08b4e8', '01a22002-b0ac-7dec-a1ef-1a79dae5e684', 'admin@example.com', 'a comment on a task', 1795833377017);

--
-- Data for Name: graphql_creators; Type: TABLE DATA; Schema: -; Owner: -
--

INSERT INTO graphql_creators VALUES ('01a22002-b0e8-7cc7-8d0a-49fe87484136', 'admin@example.com');

--
-- Data for Name: graphql_files; Type: TABLE DATA; Schema: -; Owner: -
--

INSERT INTO graphql_files VALUES ('01a22002-b0f3-77e2-bef3-52aa5042487f', '01a22002-b0e8-7cc7-8d0a-49fe87484136', 'first.pdf', 'application/pdf', 1127, '\x255044462d312e330a332030206f626a0a3c3c2f54797065202f506167650a2f506172656e742031203020520a2f5265736f75726365732032203020520a2f436f6e74656e74732034203020523e3e0a656e646f626a0a342030206f626a0a3c3c2f46696c746572202f466c6174654465636f6465202f4c656e677468203131353e3e0a73747265616d0a780104c031ae02211006e07e4ef197ef35e33f0b08b49bac26d6730104d6b8a59a787d3fe226c421d494f1152a495c854a120f591da70b5b3e67a6616532d638c612fb3de53053688dadf46c9cbd56982909dfb1b9ac8e606a15858bc6081ff8db9faff7e7df0f6c2ebf000000ffff5dad1c3a0a656e6473747265616d0a656e646f626a0a312030206f626a0a3c3c2f54797065202f50616765730a2f4b696473205b3320302052205d0a2f436f756e7420310a2f4d65646961426f78205b302030203539352e3238203834312e38395d0a3e3e0a656e646f626a0a352030206f626a0a3c3c2f54797065202f466f6e740a2f42617365466f6e74202f48656c7665746963610a2f53756274797065202f54797065310a2f456e636f64696e67202f57696e416e7369456e636f64696e670a3e3e0a656e646f626a0a322030206f626a0a3c3c0a2f50726f63536574205b2f504446202f54657874202f496d61676542202f496d61676543202f496d616765495d0a2f466f6e74203c3c0a2f46306137363730356431386530343934646432346362353733653533616130613863373130656339392035203020520a3e3e0a2f584f626a656374203c3c0a3e3e0a2f436f6c6f725370616365203c3c0a3e3e0a3e3e0a656e646f626a0a362030206f626a0a3c3c0a2f50726f64756365722028feff004600500044004600200031002e0037290a2f5469746c652028feff00660069007200730074002e007000640066290a2f43726561746f722028feff006100700070006b0069007400200068006f00730074290a2f4372656174696f6e446174652028443a3139373030313031303030303030290a2f4d6f64446174652028443a3230323631313238303233363137290a3e3e0a656e646f626a0a372030206f626a0a3c3c0a2f54797065202f436174616c6f670a2f50616765732031203020520a2f4e616d6573203c3c0a2f456d62656464656446696c6573203c3c202f4e616d6573205b0a20200a5d203e3e0a3e3e0a3e3e0a656e646f626a0a787265660a3020380a303030303030303030302036353533352066200a30303030303030323732203030303030206e200a30303030303030343535203030303030206e200a30303030303030303039203030303030206e200a30303030303030303837203030303030206e200a30303030303030333539203030303030206e200a30303030303030363136203030303030206e200a30303030303030373935203030303030206e200a747261696c65720a3c3c0a2f53697a6520380a2f526f6f742037203020520a2f496e666f2036203020520a3e3e0a7374617274787265660a3839320a2525454f460a', 1795833377011);

--
-- Data for Name: graphql_notifications; Type: TABLE DATA; Schema: -; Owner: -
--

INSERT INTO graphql_notifications VALUES ('01a22002-b0f6-75ea-8b12-90111187eea8', 'admin@example.com', 'admin@example.com', 'about first', 'hello', '01a22002-b0e8-7cc7-8d0a-49fe87484136', 'Notes', 1795833377014);

--
-- Data for Name: host_documents; Type: TABLE DATA; Schema: -; Owner: -
--

INSERT INTO host_documents VALUES ('2102acd5-ff68-4149-abc3-68d050e8b6fb', 'The **Amber Meadow 2** project.

Lead: edsger@example.com', 1795833376935);
INSERT INTO host_documents VALUES ('067ddd1d-4660-42bb-8b63-6a3014d1bd14', 'The **Bright Summit 3** project.

Lead: barbara@example.com', 1795833376935);
INSERT INTO host_documents VALUES ('3940b54b-1478-47d3-aa90-95f2eec46a89', 'The **Bright Falcon 1** project.

Lead: frances@example.com', 1795833376935);
INSERT INTO host_documents VALUES ('a2786cf2-996e-45c9-8ca5-45d373ca730d', '**Refactor billing export** in project p1.

- estimate: 0.5 h
- owner: grace@example.com
', 1795833376940);
INSERT INTO host_documents VALUES ('99c7f960-d413-4d51-bf11-1d0d7c89cbbb', '**Document login page** in project p1.

- estimate: 9.5 h
- owner: ada@example.com
', 1795833376940);
INSERT INTO host_documents VALUES ('6aad8932-dc9d-45a8-bc35-cce1e82e4aa5', '**Refactor login page** in project p2.

- estimate: 12.0 h
- owner: alan@example.com
', 1795833376940);
INSERT INTO host_documents VALUES ('6fbf0308-62f4-437a-873a-5558f74ddf24', '**Design search index** in project p2.

- estimate: 7.5 h
- owner: margaret@example.com
', 1795833376940);
INSERT INTO host_documents VALUES ('3c1b3d6d-828c-4862-9258-14efd975af8b', 'The **body** of first', 1795833376999);
INSERT INTO host_documents VALUES ('0B8F3F8E-5D55-4F43-9C39-5D0B1A7C2F10', 'an old upper-case secret', 1);

--
-- Data for Name: host_reserved_ids; Type: TABLE DATA; Schema: -; Owner: -
--

--
-- Data for Name: host_sessions; Type: TABLE DATA; Schema: -; Owner: -
--

--
-- Data for Name: host_tokens; Type: TABLE DATA; Schema: -; Owner: -
--

INSERT INTO host_tokens VALUES ('ef2bdb1c-d320-4b27-ba3b-71c29f0cad4c', '3a01ee2e-634b-4820-8b2b-f920bc29b596', '--token', 'a0469f79b22d0381ee8cdc148057d9742bb775018b82dd0b93fce606b1f3a171', 1795833376799, 1795833376832);
INSERT INTO host_tokens VALUES ('3f5d7d89-890b-48dd-a59d-04132378232c', '63ce9d59-575c-4a2a-a2fb-9ee4e2584ee0', 'fixture token', '1559395d8ac1e48ff169c6970c8c6c3a9fa862017ee00e2e59cca3df05633e58', 1795833376955, NULL);

--
-- Data for Name: host_users; Type: TABLE DATA; Schema: -; Owner: -
--

INSERT INTO host_users VALUES ('3a01ee2e-634b-4820-8b2b-f920bc29b596', 'admin@example.com', '$2a$04$VpOI3PHZ1q7v8ntdba4Nwe2kfVITdvyhC/.PwNc6uIY.e9zn6WSD2', 1795833376797);
INSERT INTO host_users VALUES ('63ce9d59-575c-4a2a-a2fb-9ee4e2584ee0', 'someone@example.com', '$2a$04$RK27ePg9Lj0LMIa.DOvpNerGQFVHuqyVOT4jQm6AAk.FI58ZjOCNK', 1795833376955);

--
-- Data for Name: sync_state; Type: TABLE DATA; Schema: -; Owner: -
--

INSERT INTO sync_state VALUES ('app:tracker', '{"url":"http://127.0.0.1:46411","app":"Tracker","logo":"PHN2ZyB4bWxucz0iaHR0cDovL3d3dy53My5vcmcvMjAwMC9zdmciIHZpZXdCb3g9IjAgMCA2NCA2NCIgd2lkdGg9IjY0IiBoZWlnaHQ9IjY0Ij48cmVjdCB3aWR0aD0iNjQiIGhlaWdodD0iNjQiIHJ4PSIxMiIgZmlsbD0iIzJiNmNiMCIvPjxwYXRoIGQ9Ik0xNiAyMmgzMk0xNiAzNGgzMk0xNiA0NmgyMCIgc3Ryb2tlPSIjZmZmIiBzdHJva2Utd2lkdGg9IjUiIHN0cm9rZS1saW5lY2FwPSJyb3VuZCIvPjxwYXRoIGQ9Ik00MiA0NGw0IDQgOC0xMCIgZmlsbD0ibm9uZSIgc3Ryb2tlPSIjOWFlNmI0IiBzdHJva2Utd2lkdGg9IjQiIHN0cm9rZS1saW5lY2FwPSJyb3VuZCIgc3Ryb2tlLWxpbmVqb2luPSJyb3VuZCIvPjwvc3ZnPg==","auth":"token","account":null,"last_success":"2026-11-28T02:36:16.869Z","last_types":["project","task"],"selection":{"types":["project","task"]},"seq":1,"mapping":{"project":{"app_type":"project","store":"tracker/project","fields":{"created":{"app_id":"created","name":"Created","kind":"date-time","store":"tracker.project/created"},"description":{"app_id":"description","name":"Description","kind":"markdown","store":"tracker.project/description"},"name":{"app_id":"name","name":"Name","kind":"text","store":"tracker.project/name"},"url":{"app_id":"url","name":"URL","kind":"text","store":"tracker.project/url"}}},"task":{"app_type":"task","store":"tracker/task","fields":{"assignee":{"app_id":"assignee","name":"Assignee","kind":"email","store":"tracker.task/assignee"},"created":{"app_id":"created","name":"Created","kind":"date-time","store":"tracker.task/created"},"description":{"app_id":"description","name":"Description","kind":"markdown","store":"tracker.task/description"},"due":{"app_id":"due","name":"Due","kind":"date","store":"tracker.task/due"},"estimate":{"app_id":"estimate","name":"Estimate","kind":"decimal","store":"tracker.task/estimate"},"name":{"app_id":"name","name":"Name","kind":"text","store":"tracker.task/name"},"priority":{"app_id":"priority","name":"Priority","kind":"int","store":"tracker.task/priority"},"project":{"app_id":"project","name":"Project","kind":"ref-one","store":"tracker.task/project","target":"project","target_field":"id"},"status":{"app_id":"status","name":"Status","kind":"select","store":"tracker.task/status","enum":"tracker.task/status_tracker/task"},"tags":{"app_id":"tags","name":"Tags","kind":"list","store":"tracker.task/tags"},"updated":{"app_id":"updated","name":"Updated","kind":"date-time","store":"tracker.task/updated"},"url":{"app_id":"url","name":"URL","kind":"text","store":"tracker.task/url"}}}},"type_last":{"project":{"started":"2026-11-28T02:36:16.869Z","types":["project","task"],"filter":{}},"task":{"started":"2026-11-28T02:36:16.869Z","types":["project","task"],"filter":{}}}}', 1795833376944);

--
-- Data for Name: t_1; Type: TABLE DATA; Schema: -; Owner: -
--

INSERT INTO t_1 VALUES ('01a22002-b0a8-7808-a082-d5410ba7200c', '1', 1795833376935, 1795833376935, '3940b54b-1478-47d3-aa90-95f2eec46a89');
INSERT INTO t_1 VALUES ('01a22002-b0a8-7809-9397-9d364f8fc81f', '2', 1795833376935, 1795833376935, '2102acd5-ff68-4149-abc3-68d050e8b6fb');
INSERT INTO t_1 VALUES ('01a22002-b0a8-780a-b489-66d33cc40508', '3', 1795833376935, 1795833376935, '067ddd1d-4660-42bb-8b63-6a3014d1bd14');
INSERT INTO t_1 VALUES ('01a22002-b0ad-78e9-b045-3e2cd53482f1', '4', 1795833376940, 1795833376940, '99c7f960-d413-4d51-bf11-1d0d7c89cbbb');
INSERT INTO t_1 VALUES ('01a22002-b0ad-78eb-b301-5191ae40f542', '5', 1795833376940, 1795833376940, '6aad8932-dc9d-45a8-bc35-cce1e82e4aa5');
INSERT INTO t_1 VALUES ('01a22002-b0ad-78ed-b6a4-11b4d3646d47', '6', 1795833376940, 1795833376940, '6fbf0308-62f4-437a-873a-5558f74ddf24');
INSERT INTO t_1 VALUES ('01a22002-b0ad-78ee-8f60-7b77f4c511ce', '7', 1795833376940, 1795833376940, 'a2786cf2-996e-45c9-8ca5-45d373ca730d');
INSERT INTO t_1 VALUES ('01a22002-b0e8-7cfb-a46e-01230c2cce2a', '8', 1795833376999, 1795833376999, '3c1b3d6d-828c-4862-9258-14efd975af8b');

--
-- Data for Name: t_10; Type: TABLE DATA; Schema: -; Owner: -
--

INSERT INTO t_10 VALUES ('01a22002-b0ac-7dec-a1ef-1a79dae5e684', '1', 1795833376940, 1795833376940, 't1', 1, 'pJU1TxZTE3iwvm8Uz8Vsxw', 'ada@example.com', 1755677144000, '01a22002-b0ad-78e9-b045-3e2cd53482f1', '2025-12-03', 9.5, 'Document login page', 2, '01a22002-b0a8-7555-b2b6-1a88f17ff44b', '315e57e5-e5da-5d9e-839d-03f231aa4e67', '["docs","security"]', 1791571001000, 'https://tracker.example.com/tasks/1');
INSERT INTO t_10 VALUES ('01a22002-b0ac-7df0-a1a7-f864c0feadca', '2', 1795833376940, 1795833376940, 't2', 1, 'M/alQxHb544AkQoOBGfAnQ', 'alan@example.com', 1753884329000, '01a22002-b0ad-78eb-b301-5191ae40f542', '2026-04-19', 12, 'Refactor login page', 2, '01a22002-b0a8-755a-9a13-1fad8d8b33b7', '251fa88d-bdbb-5e11-a8a7-94c1eb935c5c', '["feature","docs"]', 1794829523000, 'https://tracker.example.com/tasks/2');
INSERT INTO t_10 VALUES ('01a22002-b0ac-7df1-bf32-1250d893b852', '3', 1795833376940, 1795833376940, 't3', 1, 'J9Z4KnLVrxyLL8EHWBoLKA', 'margaret@example.com', 1752531035000, '01a22002-b0ad-78ed-b6a4-11b4d3646d47', '2026-01-25', 7.5, 'Design search index', 3, '01a22002-b0a8-755a-9a13-1fad8d8b33b7', '315e57e5-e5da-5d9e-839d-03f231aa4e67', '["chore","docs"]', 1791245794000, 'https://tracker.example.com/tasks/3');
INSERT INTO t_10 VALUES ('01a22002-b0ac-7df2-820e-7513676542bc', '4', 1795833376940, 1795833376940, 't4', 1, 'WBWfdo2Lms8r6pgxYa/RWQ', 'grace@example.com', 1755333697000, '01a22002-b0ad-78ee-8f60-7b77f4c511ce', '2026-06-22', 0.5, 'Refactor billing export', 1, '01a22002-b0a8-7555-b2b6-1a88f17ff44b', '8659a4f7-c3ce-5afd-8164-af5995e568b7', '["security"]', 1791988893000, 'https://tracker.example.com/tasks/4');

--
-- Data for Name: t_26; Type: TABLE DATA; Schema: -; Owner: -
--

INSERT INTO t_26 VALUES ('251fa88d-bdbb-5e11-a8a7-94c1eb935c5c', '1', 1795833376871, 1795833376871, 'todo', 1);
INSERT INTO t_26 VALUES ('315e57e5-e5da-5d9e-839d-03f231aa4e67', '2', 1795833376871, 1795833376871, 'doing', 2);
INSERT INTO t_26 VALUES ('8659a4f7-c3ce-5afd-8164-af5995e568b7', '3', 1795833376871, 1795833376871, 'done', 3);

--
-- Data for Name: t_3; Type: TABLE DATA; Schema: -; Owner: -
--

INSERT INTO t_3 VALUES ('01a22002-b0e8-7cc7-8d0a-49fe87484136', '1', 1795833376999, 1795833376999, 'first', '01a22002-b0e8-7cfb-a46e-01230c2cce2a');

--
-- Data for Name: t_6; Type: TABLE DATA; Schema: -; Owner: -
--

INSERT INTO t_6 VALUES ('01a22002-b0a8-7555-b2b6-1a88f17ff44b', '1', 1795833376935, 1795833376935, 'p1', 1, 'AKm8WT34RYzVnYcRKfD/5Q', 1725775812000, '01a22002-b0a8-7808-a082-d5410ba7200c', 'Bright Falcon 1', 'https://tracker.example.com/projects/1');
INSERT INTO t_6 VALUES ('01a22002-b0a8-755a-9a13-1fad8d8b33b7', '2', 1795833376935, 1795833376935, 'p2', 1, 'ykZxWrzueNBxgjZmPU5KvA', 1731400208000, '01a22002-b0a8-7809-9397-9d364f8fc81f', 'Amber Meadow 2', 'https://tracker.example.com/projects/2');
INSERT INTO t_6 VALUES ('01a22002-b0a8-755b-8060-f2fc7f418edd', '3', 1795833376935, 1795833376935, 'p3', 1, '6etBoh8pA5u5IeVqtoojYg', 1717487554000, '01a22002-b0a8-780a-b489-66d33cc40508', 'Bright Summit 3', 'https://tracker.example.com/projects/3');

--
-- Name: apps_accounts apps_accounts_pkey; Type: CONSTRAINT; Schema: -; Owner: -
--

ALTER TABLE ONLY apps_accounts
    ADD CONSTRAINT apps_accounts_pkey PRIMARY KEY (id);

--
-- Name: apps_actions apps_actions_pkey; Type: CONSTRAINT; Schema: -; Owner: -
--

ALTER TABLE ONLY apps_actions
    ADD CONSTRAINT apps_actions_pkey PRIMARY KEY (id);

--
-- Name: apps_apps apps_apps_pkey; Type: CONSTRAINT; Schema: -; Owner: -
--

ALTER TABLE ONLY apps_apps
    ADD CONSTRAINT apps_apps_pkey PRIMARY KEY (id);

--
-- Name: apps_apps apps_apps_url_key; Type: CONSTRAINT; Schema: -; Owner: -
--

ALTER TABLE ONLY apps_apps
    ADD CONSTRAINT apps_apps_url_key UNIQUE (url);

--
-- Name: apps_events apps_events_pkey; Type: CONSTRAINT; Schema: -; Owner: -
--

ALTER TABLE ONLY apps_events
    ADD CONSTRAINT apps_events_pkey PRIMARY KEY (id);

--
-- Name: apps_oauth apps_oauth_pkey; Type: CONSTRAINT; Schema: -; Owner: -
--

ALTER TABLE ONLY apps_oauth
    ADD CONSTRAINT apps_oauth_pkey PRIMARY KEY (state_hash);

--
-- Name: apps_runs apps_runs_pkey; Type: CONSTRAINT; Schema: -; Owner: -
--

ALTER TABLE ONLY apps_runs
    ADD CONSTRAINT apps_runs_pkey PRIMARY KEY (id);

--
-- Name: apps_syncs apps_syncs_pkey; Type: CONSTRAINT; Schema: -; Owner: -
--

ALTER TABLE ONLY apps_syncs
    ADD CONSTRAINT apps_syncs_pkey PRIMARY KEY (id);

--
-- Name: catalog_counters catalog_counters_pkey; Type: CONSTRAINT; Schema: -; Owner: -
--

ALTER TABLE ONLY catalog_counters
    ADD CONSTRAINT catalog_counters_pkey PRIMARY KEY (type_id);

--
-- Name: catalog_state catalog_state_pkey; Type: CONSTRAINT; Schema: -; Owner: -
--

ALTER TABLE ONLY catalog_state
    ADD CONSTRAINT catalog_state_pkey PRIMARY KEY (id);

--
-- Name: graphql_assignments graphql_assignments_pkey; Type: CONSTRAINT; Schema: -; Owner: -
--

ALTER TABLE ONLY graphql_assignments
    ADD CONSTRAINT graphql_assignments_pkey PRIMARY KEY (entity_id, email);

--
-- Name: graphql_comments graphql_comments_pkey; Type: CONSTRAINT; Schema: -; Owner: -
--

ALTER TABLE ONLY graphql_comments
    ADD CONSTRAINT graphql_comments_pkey PRIMARY KEY (id);

--
-- Name: graphql_creators graphql_creators_pkey; Type: CONSTRAINT; Schema: -; Owner: -
--

ALTER TABLE ONLY graphql_creators
    ADD CONSTRAINT graphql_creators_pkey PRIMARY KEY (entity_id);

--
-- Name: graphql_files graphql_files_pkey; Type: CONSTRAINT; Schema: -; Owner: -
--

ALTER TABLE ONLY graphql_files
    ADD CONSTRAINT graphql_files_pkey PRIMARY KEY (id);

--
-- Name: graphql_notifications graphql_notifications_pkey; Type: CONSTRAINT; Schema: -; Owner: -
--

ALTER TABLE ONLY graphql_notifications
    ADD CONSTRAINT graphql_notifications_pkey PRIMARY KEY (id);

--
-- Name: host_documents host_documents_pkey; Type: CONSTRAINT; Schema: -; Owner: -
--

ALTER TABLE ONLY host_documents
    ADD CONSTRAINT host_documents_pkey PRIMARY KEY (secret);

--
-- Name: host_reserved_ids host_reserved_ids_pkey; Type: CONSTRAINT; Schema: -; Owner: -
--

ALTER TABLE ONLY host_reserved_ids
    ADD CONSTRAINT host_reserved_ids_pkey PRIMARY KEY (scope, key);

--
-- Name: host_sessions host_sessions_pkey; Type: CONSTRAINT; Schema: -; Owner: -
--

ALTER TABLE ONLY host_sessions
    ADD CONSTRAINT host_sessions_pkey PRIMARY KEY (id_hash);

--
-- Name: host_tokens host_tokens_pkey; Type: CONSTRAINT; Schema: -; Owner: -
--

ALTER TABLE ONLY host_tokens
    ADD CONSTRAINT host_tokens_pkey PRIMARY KEY (id);

--
-- Name: host_tokens host_tokens_token_hash_key; Type: CONSTRAINT; Schema: -; Owner: -
--

ALTER TABLE ONLY host_tokens
    ADD CONSTRAINT host_tokens_token_hash_key UNIQUE (token_hash);

--
-- Name: host_users host_users_email_key; Type: CONSTRAINT; Schema: -; Owner: -
--

ALTER TABLE ONLY host_users
    ADD CONSTRAINT host_users_email_key UNIQUE (email);

--
-- Name: host_users host_users_pkey; Type: CONSTRAINT; Schema: -; Owner: -
--

ALTER TABLE ONLY host_users
    ADD CONSTRAINT host_users_pkey PRIMARY KEY (id);

--
-- Name: sync_state sync_state_pkey; Type: CONSTRAINT; Schema: -; Owner: -
--

ALTER TABLE ONLY sync_state
    ADD CONSTRAINT sync_state_pkey PRIMARY KEY (key);

--
-- Name: t_10 t_10_pkey; Type: CONSTRAINT; Schema: -; Owner: -
--

ALTER TABLE ONLY t_10
    ADD CONSTRAINT t_10_pkey PRIMARY KEY (id);

--
-- Name: t_1 t_1_pkey; Type: CONSTRAINT; Schema: -; Owner: -
--

ALTER TABLE ONLY t_1
    ADD CONSTRAINT t_1_pkey PRIMARY KEY (id);

--
-- Name: t_26 t_26_pkey; Type: CONSTRAINT; Schema: -; Owner: -
--

ALTER TABLE ONLY t_26
    ADD CONSTRAINT t_26_pkey PRIMARY KEY (id);

--
-- Name: t_3 t_3_pkey; Type: CONSTRAINT; Schema: -; Owner: -
--

ALTER TABLE ONLY t_3
    ADD CONSTRAINT t_3_pkey PRIMARY KEY (id);

--
-- Name: t_6 t_6_pkey; Type: CONSTRAINT; Schema: -; Owner: -
--

ALTER TABLE ONLY t_6
    ADD CONSTRAINT t_6_pkey PRIMARY KEY (id);

--
-- Name: apps_actions_app; Type: INDEX; Schema: -; Owner: -
--

CREATE INDEX apps_actions_app ON apps_actions USING btree (app_id, started_at);

--
-- Name: apps_events_sync; Type: INDEX; Schema: -; Owner: -
--

CREATE INDEX apps_events_sync ON apps_events USING btree (sync_id, status, received_at);

--
-- Name: apps_runs_sync; Type: INDEX; Schema: -; Owner: -
--

CREATE INDEX apps_runs_sync ON apps_runs USING btree (sync_id, seq);

--
-- Name: apps_syncs_app; Type: INDEX; Schema: -; Owner: -
--

CREATE INDEX apps_syncs_app ON apps_syncs USING btree (app_id);

--
-- Name: apps_syncs_space; Type: INDEX; Schema: -; Owner: -
--

CREATE UNIQUE INDEX apps_syncs_space ON apps_syncs USING btree (space) WHERE (space <> ''::text);

--
-- Name: graphql_comments_entity; Type: INDEX; Schema: -; Owner: -
--

CREATE INDEX graphql_comments_entity ON graphql_comments USING btree (entity_id, created, id);

--
-- Name: graphql_files_entity; Type: INDEX; Schema: -; Owner: -
--

CREATE INDEX graphql_files_entity ON graphql_files USING btree (entity_id, created, id);

--
-- Name: graphql_notifications_recipient; Type: INDEX; Schema: -; Owner: -
--

CREATE INDEX graphql_notifications_recipient ON graphql_notifications USING btree (recipient, created);

--
-- Name: host_sessions_expiry; Type: INDEX; Schema: -; Owner: -
--

CREATE INDEX host_sessions_expiry ON host_sessions USING btree (expires_at);

--
-- Name: host_tokens_user; Type: INDEX; Schema: -; Owner: -
--

CREATE INDEX host_tokens_user ON host_tokens USING btree (user_id);

--
-- Name: t_10_c_11; Type: INDEX; Schema: -; Owner: -
--

CREATE UNIQUE INDEX t_10_c_11 ON t_10 USING btree (c_11);

--
-- Name: t_10_c_20; Type: INDEX; Schema: -; Owner: -
--

CREATE INDEX t_10_c_20 ON t_10 USING btree (c_20);

--
-- Name: t_10_c_25; Type: INDEX; Schema: -; Owner: -
--

CREATE INDEX t_10_c_25 ON t_10 USING btree (c_25);

--
-- Name: t_10_c_29; Type: INDEX; Schema: -; Owner: -
--

CREATE INDEX t_10_c_29 ON t_10 USING btree (c_29);

--
-- Name: t_10_order; Type: INDEX; Schema: -; Owner: -
--

CREATE INDEX t_10_order ON t_10 USING btree (created, id);

--
-- Name: t_1_order; Type: INDEX; Schema: -; Owner: -
--

CREATE INDEX t_1_order ON t_1 USING btree (created, id);

--
-- Name: t_1_secret; Type: INDEX; Schema: -; Owner: -
--

CREATE INDEX t_1_secret ON t_1 USING btree (c_2);

--
-- Name: t_26_order; Type: INDEX; Schema: -; Owner: -
--

CREATE INDEX t_26_order ON t_26 USING btree (created, id);

--
-- Name: t_3_c_5; Type: INDEX; Schema: -; Owner: -
--

CREATE INDEX t_3_c_5 ON t_3 USING btree (c_5);

--
-- Name: t_3_order; Type: INDEX; Schema: -; Owner: -
--

CREATE INDEX t_3_order ON t_3 USING btree (created, id);

--
-- Name: t_6_c_15; Type: INDEX; Schema: -; Owner: -
--

CREATE INDEX t_6_c_15 ON t_6 USING btree (c_15);

--
-- Name: t_6_c_7; Type: INDEX; Schema: -; Owner: -
--

CREATE UNIQUE INDEX t_6_c_7 ON t_6 USING btree (c_7);

--
-- Name: t_6_order; Type: INDEX; Schema: -; Owner: -
--

CREATE INDEX t_6_order ON t_6 USING btree (created, id);

--
-- Name: host_sessions host_sessions_user_id_fkey; Type: FK CONSTRAINT; Schema: -; Owner: -
--

ALTER TABLE ONLY host_sessions
    ADD CONSTRAINT host_sessions_user_id_fkey FOREIGN KEY (user_id) REFERENCES host_users(id) ON DELETE CASCADE;

--
-- Name: host_tokens host_tokens_user_id_fkey; Type: FK CONSTRAINT; Schema: -; Owner: -
--

ALTER TABLE ONLY host_tokens
    ADD CONSTRAINT host_tokens_user_id_fkey FOREIGN KEY (user_id) REFERENCES host_users(id) ON DELETE CASCADE;

--
-- PostgreSQL database dump complete
--
