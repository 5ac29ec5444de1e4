//! The export's `README.md`: what each file is, how to deploy it, what the formats left out.

use super::TableExport;
use crate::workbook::Workbook;
use std::fmt::Write as _;

pub(super) fn readme(workbook: &Workbook, tables: &[TableExport<'_>], access_code: bool, notes: &[String]) -> String {
    let mut out = format!(
        "# {} — infrastructure exported by dynalab\n\nThe tables of the design `{}` as the files a team deploys, written by `dynalab export` from the design it proved. Each file declares the same tables:\n\n",
        workbook.name, workbook.name
    );
    for table in tables {
        let indexes = table.indexes("GlobalSecondaryIndexes").len() + table.indexes("LocalSecondaryIndexes").len();
        let _ = writeln!(
            out,
            "- `{}`: key {}{}, {}, {} secondary index{}{}",
            table.name,
            table.key("HASH").join(" + "),
            table.key("RANGE").first().map_or(String::new(), |r| format!(" / {r}")),
            if table.billing() == "PROVISIONED" { "provisioned" } else { "on demand" },
            indexes,
            if indexes == 1 { "" } else { "es" },
            table.time_to_live.as_ref().map_or(String::new(), |t| format!(", time to live on `{t}`"))
        );
    }
    out.push_str(
        "\n| file | what it is | deploy |\n|---|---|---|\n\
         | `cloudformation.yaml` | a CloudFormation template: each table, and a scalable target with a target-tracking policy (70%) per declared auto scaling range | `aws cloudformation deploy --template-file cloudformation.yaml --stack-name NAME` |\n\
         | `serverless.yml` | the same resources as a Serverless Framework service | `serverless deploy` |\n\
         | `main.tf` | Terraform: one `aws_dynamodb_table` per table (its name a variable), `aws_appautoscaling_target` and policy per range | `terraform init && terraform apply` |\n\
         | `cdk/` | a CDK app in TypeScript: `design-stack.ts` (one `TableV2` per table), `app.ts`, `cdk.json`, `package.json` | `cd cdk && npm install && npx cdk deploy` (Node 22.18+) |\n\n\
         Before deploying, check that each file still holds the proven design: `dynalab check cloudformation.yaml`, `dynalab check main.tf`, `dynalab check serverless.yml` and, after `npx cdk synth` in `cdk/`, `dynalab check cdk/cdk.out/STACK.template.json` report the same tables, keys, indexes, billing and declared capacity.\n",
    );
    if access_code {
        out.push_str(
            "\n## Access code\n\nOne function per access pattern, named after it, making the call the proof ran (key condition, index, order, limit, filter, projection, consistency, conditions, transaction actions); its parameters are the pattern's key inputs. Each test loads `fixture.json` (the design's tables, items and setup) into Dynalab's engine in the same process and expects what the proof saw: the items by key, the end of the page, the capacity units, the error.\n\n\
             | file | what it is | test |\n|---|---|---|\n\
             | `typescript/access.ts` | the functions over the AWS SDK v3 document client (`@aws-sdk/lib-dynamodb`), with an interface per kind of item | `cd typescript && npm install && npm install --no-save dynalab && node --test` (Node 22.18+; earlier 22s add `--experimental-strip-types`) |\n\
             | `typescript/access.test.ts` | a `node:test` test per pattern on the `dynalab` npm package | |\n\
             | `python/access.py` | the same functions over boto3 (the resource's client: plain values, `Decimal` numbers), with a `TypedDict` per kind of item | `cd python && pip install -r requirements.txt && pytest` |\n\
             | `python/test_access.py` | a pytest test per pattern with the `dynalab_dynamodb` fixture | |\n\
             | `fixture.json` | what the tests load: the tables, the items (DynamoDB JSON), the setup calls, the lab clock's time | |\n\n\
             The same tests run against a local endpoint instead (DynamoDB Local, `dynalab serve`) when `AWS_ENDPOINT_URL_DYNAMODB` names it, for example `AWS_ENDPOINT_URL_DYNAMODB=http://127.0.0.1:8000 node --test`: they delete and create the design's tables there and load the fixture again after each test that wrote, so they refuse any endpoint but a loopback address.\n",
        );
    }
    if !notes.is_empty() {
        out.push_str("\n## What to finish by hand\n\n");
        for note in notes {
            let _ = writeln!(out, "- {note}");
        }
    }
    out
}
