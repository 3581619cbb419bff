/** The API's resources as the console reads them (fields of the README's API section). */
export interface Product {
  readonly uuid: string;
  readonly api_url: string;
  readonly name: string;
  readonly version: string;
  readonly created_by: string;
  readonly dataspace: string;
  readonly created_date: string;
  readonly last_modified_date: string;
}

export interface Package {
  readonly uuid: string;
  readonly api_url: string;
  readonly purl: string;
  readonly name: string;
  readonly version: string;
  readonly license_expression: string;
  readonly usage_policy: string | null;
  readonly risk_score: number | null;
}

export interface Violation {
  readonly rule_type: string;
  readonly rule_label: string;
  readonly rule_description: string;
  readonly rule_severity: 'error' | 'warning';
  readonly violation_count: number;
  readonly detected_date: string;
}

export interface ViolationPackage {
  readonly uuid: string;
  readonly api_url: string;
  readonly purl: string;
  readonly reasons: readonly string[];
}

export interface PolicyStatus {
  readonly status: 'fail' | 'warn' | 'pass';
  readonly errors: number;
  readonly warnings: number;
  readonly evaluated_at: string | null;
}

export interface Permissions {
  readonly users: readonly { dataspace: string; username: string; object_permissions: readonly string[] }[];
  readonly groups: readonly { name: string; object_permissions: readonly string[] }[];
}

export interface Comment {
  readonly uuid: string;
  readonly username: string;
  readonly text: string;
  readonly created_date: string;
}

export interface ServiceRequest {
  readonly uuid: string;
  readonly api_url: string;
  readonly title: string;
  readonly request_template: string;
  readonly request_template_name: string;
  readonly status: 'open' | 'closed' | 'draft';
  readonly priority: string | null;
  readonly assignee: string | null;
  readonly requester: string;
  readonly product_context: string | null;
  readonly content_object: string | null;
  readonly content_type: string;
  readonly notes: string;
  readonly serialized_data: Readonly<Record<string, string | boolean>>;
  readonly is_private: boolean;
  readonly cc_emails: readonly string[];
  readonly created_date: string;
  readonly last_modified_date: string;
  readonly comments: readonly Comment[];
}

export interface Webhook {
  readonly uuid: string;
  readonly api_url: string;
  readonly target_url: string;
  readonly events: readonly string[];
  readonly is_active: boolean;
  readonly description: string;
  readonly created_date: string;
  readonly secret?: string;
}

export interface Delivery {
  readonly id: string;
  readonly event_id: string;
  readonly event_type: string;
  readonly attempt: number;
  readonly attempted_at: string;
  readonly outcome: string;
  readonly response_status: number | null;
  readonly duration_ms: number | null;
  readonly response: string;
}
