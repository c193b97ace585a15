// exceljs's streaming writer on its own (its package has no exports map): the package's main
// file loads the reader, the in-memory workbook and CSV too, about 13 MB more in the export's
// worker thread (lead-export-xlsx.worker.ts). The class is the one the package types describe.
declare module "exceljs/lib/stream/xlsx/workbook-writer.js" {
  import type ExcelJS from "exceljs";

  const WorkbookWriter: typeof ExcelJS.stream.xlsx.WorkbookWriter;
  export default WorkbookWriter;
}
