/** The one REST error shape: `{error, status}`. */
export interface ErrorBody {
  error: string;
  status: number;
}

export const errorBody = (status: number, error: string): ErrorBody => ({ error, status });
